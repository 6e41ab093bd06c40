// Every delete of ClickHouse rows goes through here, so that it is right on one server and on a
// cluster (CLICKHOUSE_CLUSTER) alike.
//
// One server: `DELETE FROM t WHERE ...` (lightweight; the session's mutations_sync=2 makes it
// return once applied). Cluster: a lightweight DELETE does not work on a Distributed table, so it
// runs on the replicated local tables of every shard: `DELETE FROM t_local ON CLUSTER c WHERE ...`.
// The ON CLUSTER statement returns once every host has run it (distributed_ddl_output_mode
// `throw`, within distributed_ddl_task_timeout, else it fails and the caller retries), and each
// host's delete waits for all replicas of its shard (lightweight_deletes_sync, default 2 since
// ClickHouse 24.4; mutations_sync=2 before): the indexer goes on only when no replica still
// shows the deleted rows.
import { localTable } from './cluster-ddl.js';
import type { ClickHouseStore } from './store.js';

/** The DELETE statement for `table` on one server (cluster unset) or on a cluster. */
export function deleteStatement(table: string, where: string, cluster?: string): string {
  if (!cluster) return `DELETE FROM ${table} WHERE ${where}`;
  return `DELETE FROM ${localTable(table)} ON CLUSTER ${cluster} WHERE ${where}`;
}

/** Deletes the rows of `table` matching `where` (with `{name:Type}` parameters). */
export function deleteRows(ch: ClickHouseStore, table: string, where: string, params?: Record<string, unknown>): Promise<void> {
  return ch.command(deleteStatement(table, where, ch.cluster), params);
}
