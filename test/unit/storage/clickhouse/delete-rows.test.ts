// Deletes of ClickHouse rows: today's statement on one server, the replicated local tables ON
// CLUSTER on a cluster (a lightweight DELETE does not work on a Distributed table), and every
// delete in src/storage written through deleteRows so none forgets the cluster.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { deleteRows, deleteStatement } from '../../../../src/storage/clickhouse/delete-rows.js';
import { deleteChainRowsFrom } from '../../../../src/storage/clickhouse/chain.js';
import { deleteCoinBalances } from '../../../../src/storage/clickhouse/derived.js';
import type { ClickHouseStore } from '../../../../src/storage/clickhouse/store.js';
import { projectRoot } from '../../../../src/paths.js';

/** A store that records its commands (only `command` and `cluster` are used by deletes). */
function recorder(cluster?: string): { ch: ClickHouseStore; sent: { sql: string; params?: Record<string, unknown> }[] } {
  const sent: { sql: string; params?: Record<string, unknown> }[] = [];
  const ch = {
    cluster,
    async command(sql: string, params?: Record<string, unknown>) {
      sent.push({ sql, params });
    },
  } as unknown as ClickHouseStore;
  return { ch, sent };
}

t.test('the statement on one server and on a cluster', async (t) => {
  t.equal(deleteStatement('blocks', 'number >= {h:UInt64}'), 'DELETE FROM blocks WHERE number >= {h:UInt64}');
  t.equal(deleteStatement('blocks', 'number >= {h:UInt64}', 'explorer'), 'DELETE FROM blocks_local ON CLUSTER explorer WHERE number >= {h:UInt64}');
});

t.test('resume and reorg deletes: today\'s statements on one server, the local tables on a cluster', async (t) => {
  const one = recorder();
  await deleteChainRowsFrom(one.ch, 42);
  t.equal(one.sent[0].sql, 'DELETE FROM blocks WHERE number >= {h:UInt64}', 'blocks first, as before');
  for (const table of ['transactions', 'logs', 'internal_transactions', 'address_transactions', 'coin_balance_history']) {
    t.ok(one.sent.some((s) => s.sql === `DELETE FROM ${table} WHERE block_number >= {h:UInt64}`), table);
  }
  t.ok(one.sent.every((s) => s.params?.h === 42));

  const many = recorder('explorer');
  await deleteChainRowsFrom(many.ch, 42);
  t.equal(many.sent.length, one.sent.length, 'the same tables');
  t.equal(many.sent[0].sql, 'DELETE FROM blocks_local ON CLUSTER explorer WHERE number >= {h:UInt64}');
  t.ok(many.sent.every((s) => /^DELETE FROM \w+_local ON CLUSTER explorer WHERE /.test(s.sql)), 'every one on the local tables');

  const coin = recorder('explorer');
  await deleteCoinBalances(coin.ch, [{ address: '0xab', block_number: 7 }]);
  t.same(coin.sent, [
    { sql: 'DELETE FROM coin_balance_history_local ON CLUSTER explorer WHERE address = {a:String} AND block_number = {b:UInt64}', params: { a: '0xab', b: 7 } },
  ]);
  const direct = recorder();
  await deleteRows(direct.ch, 'logs', 'block_number = {b:UInt64}', { b: 1 });
  t.same(direct.sent, [{ sql: 'DELETE FROM logs WHERE block_number = {b:UInt64}', params: { b: 1 } }]);
});

t.test('no delete in src/storage bypasses deleteRows', async (t) => {
  const dir = path.join(projectRoot(), 'src', 'storage');
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.startsWith('postgres'));
  const bypass: string[] = [];
  for (const f of files) {
    if (f === path.join('clickhouse', 'delete-rows.ts')) continue;
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const [i, line] of text.split('\n').entries()) {
      if (/^\s*(\/\/|\*)/.test(line)) continue;
      if (/\b(DELETE FROM|ALTER TABLE \S+ (ON CLUSTER \S+ )?DELETE|TRUNCATE)\b/.test(line)) bypass.push(`src/storage/${f}:${i + 1}: ${line.trim()}`);
    }
  }
  t.same(bypass, [], 'ClickHouse deletes go through deleteRows (src/storage/clickhouse/delete-rows.ts), which knows the cluster');
});
