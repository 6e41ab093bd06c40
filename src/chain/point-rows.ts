// The point rows of a block range: what a single transaction's and a single block's answer read,
// built from the same rows the ClickHouse tables get (a RowSink in front of the TableWriter) and
// encoded compactly (point-codec.ts), as the PostgreSQL array literals one INSERT takes
// (src/storage/postgres/points.ts). Pure: no I/O; runs in the ingest workers, the upgrade's
// backfill and the benchmarks alike.
import type { RowSink } from './bundle.js';
import { INPUT_IN_POINT_ROW, type BlockRewardRow, type BlockRow, type InternalTransactionRow, type RowOf, type TableName, type TokenTransferRow, type TransactionRow } from './clickhouse-rows.js';
import type { TableWriter } from './clickhouse-encode.js';
import { PointReader, PointWriter, type Schema } from './point-codec.js';

/**
 * A transaction's row: every field of the API's TransactionRead but its hash (the key), its
 * block's number, its index, sender and receiver (columns: the address pages' index), its
 * block's hash and time (its block's row), and two facts of its frames that the page shows: the
 * top-level frame's output when it reverted, and whether a frame below the top level failed.
 */
const TX_FIELDS: Schema = [
  ['nonce', 'dec'],
  ['value', 'dec'],
  ['gas', 'dec'],
  ['gas_price', 'decN'],
  ['max_fee_per_gas', 'decN'],
  ['max_priority_fee_per_gas', 'decN'],
  ['type', 'int'],
  ['input', 'str'],
  ['method_id', 'str'],
  ['status', 'intN'],
  ['gas_used', 'dec'],
  ['effective_gas_price', 'dec'],
  ['fee', 'dec'],
  ['created_contract', 'str'],
  ['error', 'str'],
  ['authorization_list', 'str'],
  ['blob_gas_used', 'decN'],
  ['blob_gas_price', 'decN'],
  ['log_count', 'int'],
  ['token_transfer_count', 'int'],
  ['internal_count', 'int'],
];
// The row: TX_FIELDS, then the revert output (str) and whether an inner frame failed (int), then
// its transfers' count and each transfer (TRANSFER_SCHEMA), then the extensions (EXTENSIONS).

/**
 * Sections appended to a row after what the first point rows held, so that a row written before
 * them still decodes: after the row's last section comes the number of extensions the writer knew
 * (uvar), then each extension's fields in order. A row that ends before that number (written
 * before any extension) has none; a reader reads the extensions it knows of and ignores any after
 * them. 1: EIP-4844's blob fields (TX_BLOB_FIELDS, BLOCK_BLOB_FIELDS). 2: a transaction's OP
 * Stack fields (TX_OP_FIELDS; a block has none, so its rows still say 1).
 */
const EXTENSIONS = 2;
const BLOCK_EXTENSIONS = 1;
/** A transaction's blob fields (extension 1): the receipt's are in TX_FIELDS already. */
const TX_BLOB_FIELDS: Schema = [
  ['max_fee_per_blob_gas', 'decN'],
  ['blob_versioned_hashes', 'strs'],
];
/** A transaction's OP Stack fields (extension 2), the stored text of src/chain/op-stack.ts. */
const TX_OP_FIELDS: Schema = [['op', 'str']];

/** How many of a transaction's token transfers its row carries (what its page shows). */
export const TX_TRANSFERS = 10;
/** A token transfer in its transaction's row: TokenTransferRead but what the transaction gives. */
const TRANSFER_FIELDS: Schema = [
  ['log_index', 'int'],
  ['batch_index', 'int'],
  ['token_address', 'str'],
  ['token_type', 'str'],
  ['from', 'str'],
  ['to', 'str'],
  ['value', 'dec'],
  ['token_id', 'decN'],
  ['kind', 'str'],
  ['method_id', 'str'],
];
const TRANSFER_SCHEMA: Schema = [...TRANSFER_FIELDS, ['batch_size', 'int']];
/** What a transfer in a transaction's row is built from (token_transfers' fields). */
export type TransferSource = Pick<TokenTransferRow, 'block_number' | 'transaction_index' | 'log_index' | 'token_type'> & Record<string, unknown>;

/** A block's row: the API's BlockRead but its number and hash (columns), with its listed internal transactions' count. */
const BLOCK_FIELDS: Schema = [
  ['parent_hash', 'str'],
  ['ts', 'int'],
  ['miner', 'str'],
  ['size', 'dec'],
  ['gas_limit', 'dec'],
  ['gas_used', 'dec'],
  ['base_fee_per_gas', 'decN'],
  ['difficulty', 'dec'],
  ['total_difficulty', 'decN'],
  ['nonce', 'str'],
  ['uncles', 'strs'],
  ['transaction_count', 'int'],
  ['withdrawal_count', 'int'],
  ['burnt_fees', 'dec'],
  ['priority_fees', 'dec'],
];
// The row: BLOCK_FIELDS, then its listed internal transactions' count (int), its rewards' count
// and each reward (REWARD_SCHEMA), then the extensions (EXTENSIONS).
/**
 * A block's blob fields (extension 1): its header's, and what its transactions say: how many are
 * blob (type 3) transactions and the blob gas price the first of them paid (null without one).
 */
const BLOCK_BLOB_FIELDS: Schema = [
  ['blob_gas_used', 'decN'],
  ['excess_blob_gas', 'decN'],
  ['blob_transaction_count', 'int'],
  ['blob_gas_price', 'decN'],
];
const REWARD_SCHEMA: Schema = [
  ['address_type', 'str'],
  ['address', 'str'],
  ['reward', 'dec'],
];
/** ClickHouse's Enum8 order of block_rewards.address_type, which its reads sort by. */
const REWARD_ORDER: Record<string, number> = { validator: 1, emission_funds: 2, uncle: 3 };

/**
 * One range's point rows as PostgreSQL array literals (bytea as \x hex, NULL for none), ready for
 * unnest(): a transaction's columns are its hash, block, index, sender, receiver (`to`), the
 * contract it created when that is not its `to`, and its encoded row.
 */
export interface PointBatch {
  blocks: { count: number; numbers: string; hashes: string; rows: string };
  txs: { count: number; hashes: string; blocks: string; indexes: string; froms: string; tos: string; created: string; rows: string };
}

/** No rows (a range whose rows were written elsewhere). */
export const EMPTY_POINTS: PointBatch = {
  blocks: { count: 0, numbers: '{}', hashes: '{}', rows: '{}' },
  txs: { count: 0, hashes: '{}', blocks: '{}', indexes: '{}', froms: '{}', tos: '{}', created: '{}', rows: '{}' },
};

/** What a block's row is built from (the ClickHouse row's fields, or the API's read of them). */
export type BlockSource = Pick<BlockRow, 'number' | 'hash'> & { ts: number } & Record<string, unknown>;
export interface RewardSource {
  address_type: string;
  address: string;
  reward: string;
}
/** What a transaction's row is built from, beside its frames' facts. */
export type TxSource = Pick<TransactionRow, 'block_number' | 'hash'> & Record<string, unknown>;

interface FrameFacts {
  /** The top-level frame's output. */
  top?: string;
  failedInner: boolean;
}

/**
 * A (block, index) pair as one number, the builder's map key (a string key cost more than the
 * row's encoding): indexes within a block stay below 2^20, heights below 2^33.
 */
const key = (block: number | string, index: number | string) => Number(block) * 0x100000 + Number(index);

/** A bytea element of an array literal from bare hex (no 0x). */
const byteaLiteral = (hex: string) => `"\\\\x${hex}"`;
const ADDRESS = /^0x[0-9a-f]{40}$/;
/**
 * An address ('0x' + 40 lower-case hex) as a bytea element, or NULL for none (''); anything else
 * is refused (the column would not give it back as it came).
 */
function addressLiteral(a: string, what: string): string {
  if (!a) return 'NULL';
  if (!ADDRESS.test(a)) throw new Error(`point row: ${what} is not an address: ${JSON.stringify(a.slice(0, 100))}`);
  return byteaLiteral(a.slice(2));
}

/** Builds a range's point rows from its chain rows (any order within the range). */
export class PointBuilder {
  private readonly blocks: BlockSource[] = [];
  private readonly txs: TxSource[] = [];
  /** By key(block, transaction index). */
  private readonly frames = new Map<number, FrameFacts>();
  /** By block number. */
  private readonly listed = new Map<number, number>();
  private readonly rewards = new Map<number, RewardSource[]>();
  /** The first TX_TRANSFERS token transfers of each transaction, and the items of each ERC-1155 log (key(block, log index)). */
  private readonly transfers = new Map<number, TransferSource[]>();
  private readonly logItems = new Map<number, number>();

  block(b: BlockSource): void {
    this.blocks.push(b);
  }
  tx(t: TxSource): void {
    this.txs.push(t);
  }
  /** One frame of a transaction's trace (internal_transactions' fields). */
  frame(f: Pick<InternalTransactionRow, 'block_number' | 'transaction_index' | 'trace_index' | 'type' | 'output' | 'error'>): void {
    const k = key(f.block_number, f.transaction_index);
    let ff = this.frames.get(k);
    if (!ff) this.frames.set(k, (ff = { failedInner: false }));
    if (f.trace_index === 0) ff.top = f.output;
    else if (f.error !== '') ff.failedInner = true;
    if (f.trace_index > 0 || f.type !== 'call') {
      const b = Number(f.block_number);
      this.listed.set(b, (this.listed.get(b) ?? 0) + 1);
    }
  }
  /** A transaction's frames' facts at once (read back aggregated): its top-level frame's output, a failed frame below it. */
  frameFacts(block: number | string, index: number, top: string, failedInner: boolean): void {
    this.frames.set(key(block, index), { top, failedInner });
  }
  /** How many of a block's frames the internal-transaction lists show (read back aggregated). */
  listedCount(block: number | string, n: number): void {
    this.listed.set(Number(block), n);
  }
  /** One token transfer (token_transfers' fields), in (log, batch) order within its transaction. */
  transfer(t: TransferSource): void {
    const k = key(t.block_number, t.transaction_index);
    const list = this.transfers.get(k);
    if (!list) this.transfers.set(k, [t]);
    else if (list.length < TX_TRANSFERS) list.push(t);
    if (t.token_type === 'ERC-1155') {
      const l = key(t.block_number, t.log_index);
      this.logItems.set(l, (this.logItems.get(l) ?? 0) + 1);
    }
  }
  /** How many items an ERC-1155 log holds (read back aggregated). */
  logItemCount(block: number | string, logIndex: number, n: number): void {
    this.logItems.set(key(block, logIndex), n);
  }
  /** One reward of a block (block_rewards' fields). */
  reward(blockNumber: number | string, r: RewardSource): void {
    const b = Number(blockNumber);
    const list = this.rewards.get(b);
    if (list) list.push(r);
    else this.rewards.set(b, [r]);
  }

  /** The rows, encoded; the builder is empty afterwards. */
  build(): PointBatch {
    const w = new PointWriter();
    // Each block's blob transactions (type 3): their count and the first one's blob gas price.
    const blobs = new Map<number, { blob_transaction_count: number; blob_gas_price: unknown }>();
    for (const t of this.txs) {
      if (t.type !== 3) continue;
      const n = Number(t.block_number);
      const b = blobs.get(n);
      if (b) b.blob_transaction_count++;
      else blobs.set(n, { blob_transaction_count: 1, blob_gas_price: t.blob_gas_price ?? null });
    }
    const bn: string[] = [];
    const bh: string[] = [];
    const br: string[] = [];
    for (const b of this.blocks) {
      const n = Number(b.number);
      // The schemas' last fields written on their own: a spread copy of each row cost more.
      w.row(BLOCK_FIELDS, b);
      w.uvar(this.listed.get(n) ?? 0);
      const rewards = (this.rewards.get(n) ?? []).sort(
        (x, y) => (REWARD_ORDER[x.address_type] ?? 9) - (REWARD_ORDER[y.address_type] ?? 9) || (x.address < y.address ? -1 : x.address > y.address ? 1 : 0),
      );
      w.uvar(rewards.length);
      for (const r of rewards) w.row(REWARD_SCHEMA, r as unknown as Record<string, unknown>);
      w.uvar(BLOCK_EXTENSIONS);
      const blob = blobs.get(n);
      w.row(BLOCK_BLOB_FIELDS, {
        blob_gas_used: b.blob_gas_used ?? null,
        excess_blob_gas: b.excess_blob_gas ?? null,
        blob_transaction_count: blob?.blob_transaction_count ?? 0,
        blob_gas_price: blob?.blob_gas_price ?? null,
      });
      bn.push(String(b.number));
      bh.push(byteaLiteral(b.hash.slice(2)));
      br.push(byteaLiteral(w.takeHex()));
    }
    const th: string[] = [];
    const tb: string[] = [];
    const ti: string[] = [];
    const tf: string[] = [];
    const tt: string[] = [];
    const tc: string[] = [];
    const tr: string[] = [];
    for (const t of this.txs) {
      const k = key(t.block_number, t.transaction_index as number);
      const f = this.frames.get(k);
      const top = f?.top;
      w.row(TX_FIELDS, t);
      w.str(t.status === 0 && top && top !== '0x' ? top : '');
      w.uvar(f?.failedInner ? 1 : 0);
      // Its first transfers, each with its log's item count (1 but in an ERC-1155 batch), as ClickHouse's read gives them.
      const transfers = this.transfers.get(k) ?? [];
      w.uvar(transfers.length);
      for (const x of transfers) {
        w.row(TRANSFER_FIELDS, x);
        w.uvar(x.token_type === 'ERC-1155' ? (this.logItems.get(key(x.block_number, x.log_index)) ?? 1) : 1);
      }
      w.uvar(EXTENSIONS);
      w.row(TX_BLOB_FIELDS, t);
      w.str((t.op as string | undefined) ?? '');
      const to = (t.to as string) ?? '';
      const created = (t.created_contract as string) ?? '';
      th.push(byteaLiteral(t.hash.slice(2)));
      tb.push(String(t.block_number));
      ti.push(String(t.transaction_index));
      const from = (t.from as string) ?? '';
      if (!from) throw new Error(`point row: transaction ${t.hash} has no sender`);
      tf.push(addressLiteral(from, `the sender of ${t.hash}`));
      tt.push(addressLiteral(to, `the receiver of ${t.hash}`));
      tc.push(created !== to ? addressLiteral(created, `the contract created by ${t.hash}`) : 'NULL');
      tr.push(byteaLiteral(w.takeHex()));
    }
    this.blocks.length = 0;
    this.txs.length = 0;
    this.frames.clear();
    this.listed.clear();
    this.rewards.clear();
    this.transfers.clear();
    this.logItems.clear();
    return {
      blocks: { count: bn.length, numbers: `{${bn.join(',')}}`, hashes: `{${bh.join(',')}}`, rows: `{${br.join(',')}}` },
      txs: {
        count: th.length,
        hashes: `{${th.join(',')}}`,
        blocks: `{${tb.join(',')}}`,
        indexes: `{${ti.join(',')}}`,
        froms: `{${tf.join(',')}}`,
        tos: `{${tt.join(',')}}`,
        created: `{${tc.join(',')}}`,
        rows: `{${tr.join(',')}}`,
      },
    };
  }
}

/**
 * A RowSink in front of the ClickHouse encoder: every row goes on, and the point rows are built
 * beside. A transaction's calldata goes to its point row only (INPUT_IN_POINT_ROW).
 */
export class PointSink implements RowSink {
  readonly points = new PointBuilder();
  /** `inner` encodes each row at once (TableWriter): the row object is changed back after it. */
  constructor(private readonly inner: TableWriter) {}
  add<T extends TableName>(table: T, row: RowOf<T>): void {
    if (table === 'transactions') {
      // The calldata goes to the point row only; ClickHouse's row carries the marker. The inner
      // writer encodes at once, so the row object gets its calldata back for the point row.
      const t = row as TransactionRow;
      const input = t.input;
      t.input = INPUT_IN_POINT_ROW;
      try {
        this.inner.add(table, row);
      } finally {
        t.input = input;
      }
    } else this.inner.add(table, row);
    switch (table) {
      case 'blocks': {
        const { timestamp, ...b } = row as BlockRow;
        this.points.block({ ...b, ts: timestamp });
        break;
      }
      case 'transactions':
        this.points.tx(row as TransactionRow as unknown as TxSource);
        break;
      case 'internal_transactions':
        this.points.frame(row as InternalTransactionRow);
        break;
      case 'token_transfers':
        this.points.transfer(row as TokenTransferRow as unknown as TransferSource);
        break;
      case 'block_rewards': {
        const r = row as BlockRewardRow;
        this.points.reward(r.block_number, r);
        break;
      }
    }
  }
}

/** A decoded transaction row: its fields as the API reads them, and its frames' facts. */
export interface DecodedTx {
  fields: Record<string, unknown>;
  revertOutput: string;
  failedInner: boolean;
  /** Its first TX_TRANSFERS token transfers' own fields. */
  transfers: Record<string, unknown>[];
}

/**
 * A transaction's row, its fields written into `into` (the read object the caller started: no
 * copy of them, and no property deleted afterwards, which would slow every later access).
 */
export function decodeTxRow(row: Uint8Array, into: Record<string, unknown> = {}): DecodedTx {
  const r = new PointReader(row);
  const fields = r.row<Record<string, unknown>>(TX_FIELDS, into);
  const revertOutput = r.field('str') as string;
  const failedInner = r.field('int') === 1;
  const n = r.uvar();
  const transfers: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) transfers.push(r.row<Record<string, unknown>>(TRANSFER_SCHEMA, {}));
  const extensions = r.done ? 0 : r.uvar();
  if (extensions >= 1) r.row(TX_BLOB_FIELDS, fields);
  else if (fields.type !== 3) {
    // Written before the blob fields: a transaction of another type has none.
    fields.max_fee_per_blob_gas = null;
    fields.blob_versioned_hashes = [];
  }
  // Written before the OP Stack fields: none were stored then (ClickHouse's rows say '' too).
  if (extensions >= 2) r.row(TX_OP_FIELDS, fields);
  else fields.op = '';
  // A blob transaction's row written before them leaves them out (undefined): its reader takes them from ClickHouse.
  return { fields, revertOutput, failedInner, transfers };
}

export interface DecodedBlock {
  fields: Record<string, unknown>;
  internalCount: number;
  rewards: RewardSource[];
  /** Its blob transactions' count and the first one's blob gas price; null in a row written before them. */
  blobs: BlockBlobFacts | null;
}

/** What a block's transactions say of its blobs (Blockscout's blob_transactions_count and blob_gas_price). */
export interface BlockBlobFacts {
  count: number;
  /** The blob gas price its first blob transaction paid; null without one. */
  price: string | null;
}

/** A block's row, its fields written into `into` (as decodeTxRow). */
export function decodeBlockRow(row: Uint8Array, into: Record<string, unknown> = {}): DecodedBlock {
  const r = new PointReader(row);
  const fields = r.row<Record<string, unknown>>(BLOCK_FIELDS, into);
  const internalCount = r.field('int') as number;
  const n = r.uvar();
  const rewards: RewardSource[] = [];
  for (let i = 0; i < n; i++) rewards.push(r.row<RewardSource>(REWARD_SCHEMA, {}));
  if (r.done || r.uvar() < 1) return { fields, internalCount, rewards, blobs: null };
  const x = r.row<Record<string, unknown>>(BLOCK_BLOB_FIELDS, {});
  fields.blob_gas_used = x.blob_gas_used;
  fields.excess_blob_gas = x.excess_blob_gas;
  return { fields, internalCount, rewards, blobs: { count: x.blob_transaction_count as number, price: x.blob_gas_price as string | null } };
}
