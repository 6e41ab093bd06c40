// The shape of every derived-data lane: what is due, one batch of work, and (where it derived
// something from blocks) the undoing of it above a height in the indexer's rewind transaction.
// src/derived/scheduler.ts runs the lanes; a new lane is one file under lanes/ with this shape.
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore, PgTx } from '../storage/postgres/store.js';
import type { RpcClient } from '../rpc/client.js';
import type { Logger } from '../log.js';
import type { NodeHistory } from './node-history.js';

/** What the scheduler gives each lane. */
export interface LaneEnv {
  pg: PgStore;
  ch: ClickHouseStore;
  rpc: RpcClient;
  log: Logger;
  /** FIRST_BLOCK: where the indexed history starts. */
  firstBlock: number;
  /** Blocks per accounting step. */
  rangeBlocks: number;
  /** Changed balances per accounting step compared with balanceOf. */
  sampleSize: number;
  ipfsGateway: string;
  allowPrivateMetadataHosts: boolean;
  nftTimeoutMs: number;
  nftMaxAttempts: number;
  /** The indexer is far behind the node (lanes then take small steps). */
  catchingUp(): boolean;
  /** The node's head as the indexer last saw it (null: not known in this process). */
  nodeHead(): number | null;
  /** Whether the node keeps historical state, shared by the lanes that read state at past blocks. */
  history: NodeHistory;
  /** Wakes every lane (new work for the others). */
  wake(): void;
}

export interface Lane {
  readonly name: string;
  /** Items due now; the lanes are at rest when every lane says 0. */
  due(): Promise<number>;
  /** What `due` counts: 'blocks' for a lane that follows the chain checkpoint with a cursor of its own; queued items otherwise. */
  readonly dueUnit?: 'blocks';
  /** One batch of work; the number of items it handled (0: nothing was due, the lane sleeps). */
  run(): Promise<number>;
  /** In the indexer's rewind transaction: forget what this lane derived above block `above`. */
  unwind?(tx: PgTx, above: number, ancestor: { blockNumber: number; blockHash: string } | null): Promise<void>;
}

export type LaneFactory = (env: LaneEnv) => Lane;
