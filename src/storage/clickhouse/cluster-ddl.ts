// The cluster form (CLICKHOUSE_CLUSTER) of each single-node ClickHouse migration statement:
// replicated local tables on every shard, a Distributed table under the old name over them.
//
// Every table `t` of sql/clickhouse becomes
//   t_local  ON CLUSTER c: Replicated<same>MergeTree, same columns, sort key and settings, holding
//            one shard's rows, replicated between the shard's replicas through Keeper;
//   t        ON CLUSTER c: Distributed over t_local with the table's sharding key (SHARDING_KEYS).
// Reads and inserts keep naming `t`, so the code above needs no change; deletes name `t_local`
// (delete-rows.ts: lightweight DELETE does not work on a Distributed table).
//
// Replication path '/clickhouse/tables/{uuid}/{shard}' (the server's own default), not one built
// from the table's name: migration 0003 swaps tables with EXCHANGE TABLES, after which a name-based
// path would belong to the other table, and recreating the dropped name would collide with it.
// {uuid} follows the table through EXCHANGE and is the same on every replica because the table is
// created ON CLUSTER (the initiator chooses it).
//
// A statement this module has no rule for makes it throw, naming the statement: a migration
// that would run wrongly on a cluster must be given its cluster form here first.

export const LOCAL_SUFFIX = '_local';

export const localTable = (table: string): string => `${table}${LOCAL_SUFFIX}`;

/**
 * The sharding key of every table (docs/scale-out.md, "ClickHouse cluster", says why for each).
 * - Keys are functions of the table's ORDER BY columns only, so a re-inserted row (after a crash)
 *   lands on the shard holding the row it replaces, and ReplacingMergeTree and FINAL stay exact.
 * - Block-keyed tables by the block number itself: consecutive blocks go round-robin over the
 *   shards (the head's inserts spread over all of them) and a block's transactions, logs,
 *   transfers, traces, withdrawals and rewards sit on the block's shard, so the reads of one
 *   transaction or block (`block_number = b`) go to one shard with optimize_skip_unused_shards.
 * - Address- and token-keyed index tables by a hash of the address: an address page's key range
 *   (`address = a`) is on one shard.
 * - hash_index by a hash of the hash: a lookup by hash reads one shard; transaction_blobs by a
 *   hash of its versioned hash likewise.
 */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  schema_migrations: 'cityHash64(version)',
  blocks: 'number',
  hash_index: 'cityHash64(hash)',
  withdrawals: 'block_number',
  transactions: 'block_number',
  address_transactions: 'cityHash64(address)',
  logs: 'block_number',
  address_logs: 'cityHash64(address)',
  token_transfers: 'block_number',
  address_token_transfers: 'cityHash64(address)',
  token_transfers_by_token: 'cityHash64(token_address)',
  internal_transactions: 'block_number',
  address_internal_transactions: 'cityHash64(address)',
  coin_balance_history: 'cityHash64(address)',
  block_rewards: 'block_number',
  transaction_blobs: 'cityHash64(versioned_hash)',
  user_operations: 'block_number',
  op_l1_deposits: 'cityHash64(source_hash)',
  op_l1_withdrawal_events: 'cityHash64(withdrawal_hash)',
};

const REPLICATION_ARGS = "'/clickhouse/tables/{uuid}/{shard}', '{replica}'";
const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

const CREATE_COLUMNS = new RegExp(
  `^CREATE TABLE (IF NOT EXISTS )?(${NAME})\\s*\\(([\\s\\S]*)\\)\\s*ENGINE\\s*=\\s*(\\w*)MergeTree(?!\\w)(\\(([^()]*)\\))?([\\s\\S]*)$`,
);
const CREATE_AS = new RegExp(
  `^CREATE TABLE (IF NOT EXISTS )?(${NAME}) AS (${NAME})\\s+ENGINE\\s*=\\s*(\\w*)MergeTree(?!\\w)(\\(([^()]*)\\))?([\\s\\S]*)$`,
);
const DROP = new RegExp(`^DROP TABLE (IF EXISTS )?(${NAME})$`);
const EXCHANGE = new RegExp(`^EXCHANGE TABLES (${NAME}) AND (${NAME})$`);
const ALTER = new RegExp(`^ALTER TABLE (${NAME})\\s+([\\s\\S]+)$`);
const INSERT = new RegExp(`^INSERT INTO (${NAME})\\b`);
const UNLOAD_PRIMARY_KEY = new RegExp(`^SYSTEM UNLOAD PRIMARY KEY (${NAME})$`);
const CODEC = /\s+CODEC\((?:[^()]|\([^()]*\))*\)/g;

function cannot(stmt: string, why: string): Error {
  const shown = stmt.replace(/\s+/g, ' ').slice(0, 160);
  return new Error(`no cluster form for the ClickHouse statement "${shown}": ${why}`);
}

/** Splits `a, b(c, d), e` at the commas outside parentheses, quotes and backticks. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '`' || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/**
 * Turns statements into their cluster form, one at a time and in order. It remembers the sharding
 * key of each table it creates (a copy made `AS` another table inherits that table's key), so that
 * EXCHANGE TABLES can check both tables are sharded alike: swapping the local tables under
 * Distributed tables with different keys would leave rows on shards their key does not name.
 */
export class ClusterDdl {
  private readonly created = new Map<string, string>();

  constructor(
    readonly cluster: string,
    readonly database: string,
  ) {
    if (!IDENT.test(cluster)) throw new Error(`invalid ClickHouse cluster name ${JSON.stringify(cluster)}`);
    if (!IDENT.test(database)) throw new Error(`invalid ClickHouse database name ${JSON.stringify(database)}`);
  }

  private keyOf(table: string): string | undefined {
    return this.created.get(table) ?? SHARDING_KEYS[table];
  }

  private onCluster(): string {
    return `ON CLUSTER ${this.cluster}`;
  }

  private distributed(ifNotExists: string, table: string, key: string): string {
    return `CREATE TABLE ${ifNotExists}${table} ${this.onCluster()} AS ${localTable(table)} ENGINE = Distributed('${this.cluster}', '${this.database}', '${localTable(table)}', ${key})`;
  }

  private engine(stmt: string, family: string, args: string | undefined): string {
    if (family.startsWith('Replicated')) throw cannot(stmt, 'the table is replicated already');
    const extra = args?.trim() ? `, ${args.trim()}` : '';
    return `ENGINE = Replicated${family}MergeTree(${REPLICATION_ARGS}${extra})`;
  }

  /** The cluster form of one single-node statement: the statements to run, in order. */
  transform(statement: string): string[] {
    const stmt = statement.trim().replace(/;\s*$/, '');
    let m: RegExpExecArray | null;

    if ((m = CREATE_COLUMNS.exec(stmt))) {
      const [, ine = '', table, columns, family, , args, rest] = m;
      const key = SHARDING_KEYS[table];
      if (!key) throw cannot(stmt, `table ${table} has no sharding key: add it to SHARDING_KEYS (src/storage/clickhouse/cluster-ddl.ts) and say why in docs/scale-out.md`);
      this.created.set(table, key);
      return [
        `CREATE TABLE ${ine}${localTable(table)} ${this.onCluster()} (${columns}) ${this.engine(stmt, family, args)}${rest}`,
        this.distributed(ine, table, key),
      ];
    }

    if ((m = CREATE_AS.exec(stmt))) {
      // A copy of a table (0003 rebuilds a table this way, then swaps it in): it takes the
      // source's sharding key, so after the swap the rows are where the key says.
      const [, ine = '', table, source, family, , args, rest] = m;
      const key = SHARDING_KEYS[table] ?? this.keyOf(source);
      if (!key) throw cannot(stmt, `neither ${table} nor ${source} has a sharding key`);
      this.created.set(table, key);
      return [
        `CREATE TABLE ${ine}${localTable(table)} ${this.onCluster()} AS ${localTable(source)} ${this.engine(stmt, family, args)}${rest}`,
        this.distributed(ine, table, key),
      ];
    }

    if ((m = DROP.exec(stmt))) {
      // The Distributed table first: nothing names a local table that is already gone.
      const [, ie = '', table] = m;
      this.created.delete(table);
      return [`DROP TABLE ${ie}${table} ${this.onCluster()}`, `DROP TABLE ${ie}${localTable(table)} ${this.onCluster()}`];
    }

    if ((m = EXCHANGE.exec(stmt))) {
      // Only the local tables swap: each Distributed table names its local table by name, so it
      // then reads and writes the other data. Their columns are the same (EXCHANGE is for a
      // rebuilt copy), and the keys must be too (see the class comment).
      const [, a, b] = m;
      const ka = this.keyOf(a);
      const kb = this.keyOf(b);
      if (!ka || !kb || ka !== kb) {
        throw cannot(stmt, `${a} and ${b} must have the same known sharding key (${ka ?? 'none'} and ${kb ?? 'none'})`);
      }
      return [`EXCHANGE TABLES ${localTable(a)} AND ${localTable(b)} ${this.onCluster()}`];
    }

    if ((m = ALTER.exec(stmt))) return this.alter(stmt, m[1], m[2]);

    if ((m = UNLOAD_PRIMARY_KEY.exec(stmt))) {
      // The index lives with the data: in each shard's local table (a Distributed table has none).
      return [`SYSTEM UNLOAD PRIMARY KEY ${this.onCluster()} ${localTable(m[1])}`];
    }

    if (INSERT.test(stmt)) {
      // A migration's backfill (INSERT ... SELECT) runs as written, through the Distributed
      // tables: the initiator reads every shard and sends each row to the shard its key names in
      // the target table, which is correct whatever the two tables' keys are; an IN or JOIN on
      // another Distributed table inside it runs GLOBAL (the store's distributed_product_mode),
      // so it sees every shard's rows. Running it per shard instead
      // (parallel_distributed_insert_select=2) would be faster but right only when source and
      // target share the key. A cluster database is always made from the first migration on, so
      // the backfills meet empty or small tables and the speed does not matter.
      return [stmt];
    }

    if (/^CREATE (MATERIALIZED )?VIEW\b/i.test(stmt)) {
      throw cannot(stmt, 'a view needs its own cluster form: a materialized view must read and write the local tables on each shard (TO <table>_local), not written yet');
    }
    throw cannot(stmt, 'this kind of statement has no rule in src/storage/clickhouse/cluster-ddl.ts');
  }

  /**
   * ALTER: column changes go to the local tables and the Distributed table follows (it checks
   * inserted and selected columns against its own list). A codec only shapes stored bytes, so the
   * Distributed table gets the column without it; restating an unchanged type is metadata only.
   * A column is dropped from the Distributed table first and added to it last, so it never names
   * a column its local tables lack.
   */
  private alter(stmt: string, table: string, commands: string): string[] {
    const drops: string[] = [];
    const follows: string[] = [];
    for (const cmd of splitTopLevel(commands)) {
      if (/^DROP COLUMN\b/.test(cmd)) drops.push(cmd);
      else if (/^MODIFY SETTING\b/.test(cmd)) continue; // a MergeTree setting: the local table's alone
      else if (/^(ADD|MODIFY) COLUMN\b/.test(cmd)) {
        const plain = cmd.replace(CODEC, '');
        // `MODIFY COLUMN x CODEC(...)` alone changes nothing the Distributed table holds.
        if (!/^MODIFY COLUMN (IF EXISTS )?(`[^`]+`|\w+)$/.test(plain)) follows.push(plain);
      } else {
        throw cannot(stmt, `the ALTER command "${cmd.split('\n')[0]}" has no rule (only ADD, MODIFY and DROP COLUMN, MODIFY SETTING)`);
      }
    }
    const out: string[] = [];
    if (drops.length) out.push(`ALTER TABLE ${table} ${this.onCluster()}\n  ${drops.join(',\n  ')}`);
    out.push(`ALTER TABLE ${localTable(table)} ${this.onCluster()}\n  ${splitTopLevel(commands).join(',\n  ')}`);
    if (follows.length) out.push(`ALTER TABLE ${table} ${this.onCluster()}\n  ${follows.join(',\n  ')}`);
    return out;
  }
}
