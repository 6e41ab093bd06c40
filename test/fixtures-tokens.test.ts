// Token transfers decoded from real mainnet logs equal ethereum-etl's expected outputs, after
// mapping to our token types: ethereum-etl reports every Transfer log with value = the third
// parameter, so for ERC-721 its `value` is our token_id.
import t from 'tap';
import { decodeTokenTransfers, type LogContext } from '../src/chain/tokens.js';
import type { TokenTransferRow } from '../src/chain/clickhouse-rows.js';
import type { RpcLog, RpcReceipt } from '../src/chain/wire.js';
import { etl, etlResult, fixturesMissing, readCsv, readJsonLines } from './helpers/fixtures.js';

const missing = fixturesMissing();

function decodeLogs(logs: RpcLog[]): TokenTransferRow[] {
  const out: TokenTransferRow[] = [];
  for (const l of logs) {
    const ctx: LogContext = {
      block_number: Number(l.blockNumber),
      block_hash: l.blockHash ?? '',
      timestamp: 0,
      transaction_index: Number(l.transactionIndex),
      transaction_hash: l.transactionHash ?? '',
      method_id: '',
    };
    decodeTokenTransfers(l, Number(l.logIndex), ctx, out);
  }
  return out;
}

/** Our rows in ethereum-etl's shape. */
function asEtl(rows: TokenTransferRow[]) {
  return rows.map((r) => ({
    token_address: r.token_address,
    from_address: r.from,
    to_address: r.to,
    value: r.token_type === 'ERC-721' ? r.token_id : r.value,
    transaction_hash: r.transaction_hash,
    log_index: String(r.log_index),
    block_number: String(r.block_number),
  }));
}

function pickEtl(e: Record<string, unknown>) {
  return {
    token_address: String(e.token_address),
    from_address: String(e.from_address),
    to_address: String(e.to_address),
    value: String(e.value),
    transaction_hash: String(e.transaction_hash),
    log_index: String(e.log_index),
    block_number: String(e.block_number),
  };
}

t.test('eth_getFilterLogs of block 483920 -> expected_token_transfers.csv', { skip: missing }, async (t) => {
  const dir = 'test_export_token_transfers_job/block_with_transfers';
  const logs = etlResult<RpcLog[]>(...dir.split('/'), 'web3_response.eth_getFilterLogs_0x0.json');
  const rows = decodeLogs(logs);
  const expected = readCsv(etl(...dir.split('/'), 'expected_token_transfers.csv')).map(pickEtl);
  t.equal(rows.length, 2);
  t.same(asEtl(rows), expected);
  t.ok(rows.every((r) => r.token_type === 'ERC-20'));
});

t.test('logs.csv (block 1452581) -> expected_token_transfers.csv', { skip: missing }, async (t) => {
  const dir = ['test_extract_token_transfers_job', 'logs'];
  const logs: RpcLog[] = readCsv(etl(...dir, 'logs.csv')).map((r) => ({
    address: r.address!,
    topics: r.topics ? r.topics.split(',') : [],
    data: r.data!,
    logIndex: '0x' + Number(r.log_index).toString(16),
    transactionHash: r.transaction_hash!,
    transactionIndex: '0x' + Number(r.transaction_index).toString(16),
    blockHash: r.block_hash!,
    blockNumber: '0x' + Number(r.block_number).toString(16),
  }));
  t.equal(logs.length, 3);
  const rows = decodeLogs(logs);
  const expected = readCsv(etl(...dir, 'expected_token_transfers.csv')).map(pickEtl);
  t.same(asEtl(rows), expected, 'the non-Transfer log is not a transfer');
});

t.test('test_stream receipts of block 1755635 -> expected_token_transfers.json', { skip: missing }, async (t) => {
  const dir = ['test_stream', 'blocks_1755634_1755635'];
  const hashes = [
    '0x2e3dcd051a91d3a694f6b8de2ac4b5fe7acdba55f58bcf8471ff00d4a430074d',
    '0x9a5437ec71b74ecf5930b406908ac6999966d38a86d1534b7190ece7599095eb',
  ];
  const logs = hashes.flatMap((h) => etlResult<RpcReceipt>(...dir, `web3_response.eth_getTransactionReceipt_${h}.json`).logs);
  const rows = decodeLogs(logs);
  const expected = readJsonLines(etl(...dir, 'expected_token_transfers.json')).map(pickEtl);
  t.ok(expected.length > 0);
  t.same(asEtl(rows), expected);
});
