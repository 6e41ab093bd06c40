// /csv: what the CSV exports hold and how to ask the API for them (paths, parameters, columns,
// order, errors), and with ?address= the download forms of that address's four lists.
import { getAddress } from 'viem';
import { AddressLink } from '../components/common.js';
import { CsvExport, type CsvKind } from '../components/csv-export.js';
import type { PageCtx, PageResult } from '../page.js';
import { PageError } from './errors.js';

const KINDS: { kind: CsvKind; title: string; order: string; columns: [string, string][] }[] = [
  {
    kind: 'transactions',
    title: 'Transactions',
    order: 'newest first',
    columns: [
      ['TxHash', 'the transaction hash'],
      ['BlockNumber', 'its block'],
      ['UnixTimestamp', 'the block time, written as Blockscout writes it: 2024-05-01 12:34:56.000000Z (UTC)'],
      ['FromAddress, ToAddress', 'checksummed; ToAddress is empty for a contract creation'],
      ['ContractAddress', 'the contract a successful creation made'],
      ['Type', 'OUT when the address sent it, IN when it received it'],
      ['Value, Fee', `in wei, exact`],
      ['Status, ErrCode', 'ok or error, and the error of a failed transaction'],
      ['CurrentPrice, TxDateOpeningPrice, TxDateClosingPrice', 'empty: this explorer has no price source'],
      ['MethodName', 'the 4-byte selector of the call'],
    ],
  },
  {
    kind: 'token-transfers',
    title: 'Token transfers',
    order: 'oldest first',
    columns: [
      ['TxHash, BlockNumber, UnixTimestamp', 'as above'],
      ['FromAddress, ToAddress, TokenContractAddress', 'checksummed'],
      ['Type', 'OUT or IN for the address; empty for a transfer of the token the address is'],
      ['TokenDecimals, TokenSymbol', "the token's, once its metadata was read"],
      ['TokensTransferred', 'the amount in base units (empty for an ERC-721 token, which moves one id); an ERC-1155 batch gives one row per id'],
      ['TransactionFee, Status, ErrCode', 'of the transaction the transfer belongs to'],
    ],
  },
  {
    kind: 'internal-transactions',
    title: 'Internal transactions',
    order: 'newest first',
    columns: [
      ['TxHash, Index, BlockNumber, TxIndex, UnixTimestamp', 'the frame: its transaction, its position in it, its block'],
      ['FromAddress, ToAddress, ContractAddress', 'ContractAddress for a creation (ToAddress is then empty)'],
      ['Type, CallType', 'call, create, create2 or selfdestruct; for a call its kind (call, delegatecall, staticcall)'],
      ['Gas, GasUsed, Value', 'exact'],
      ['Input, Output, ErrCode', 'the call data, what it returned, and its error'],
      ['Fee', 'the gas it used times its transaction’s gas price, in wei'],
    ],
  },
  {
    kind: 'logs',
    title: 'Logs',
    order: 'newest first',
    columns: [
      ['TxHash, Index, BlockNumber, BlockHash', 'where the log was emitted'],
      ['ContractAddress', 'the emitting contract (the address itself)'],
      ['Data, FirstTopic … FourthTopic', 'the raw log; a missing topic is empty'],
    ],
  },
];

const PARAMS: [string, string][] = [
  ['from_period, to_period', 'a date (2024-05-01: the whole UTC day) or a date-time (2024-05-01T12:00:00Z, with an offset or UTC), or null for no bound. Both are required unless a block bound is given.'],
  ['from_block, to_block', 'inclusive block numbers; either may be left out or empty. With dates too, both ranges apply.'],
  ['filter_type, filter_value', 'address with to or from keeps the incoming or outgoing rows only; for logs, filter_value may be a 32-byte topic (any of the four topics matches).'],
];

export async function csvPage(ctx: PageCtx): Promise<PageResult> {
  const raw = ctx.url.searchParams.get('address');
  let address: string | null = null;
  if (raw !== null && raw !== '') {
    if (!/^0x[0-9a-fA-F]{40}$/.test(raw.trim())) throw new PageError(400, 'Invalid address', `"${raw.slice(0, 80)}" is not an address (0x and 40 hex digits).`);
    address = raw.trim().toLowerCase();
  }
  const apiBase = (ctx.apiBase ?? '').replace(/\/+$/, '');
  const example = `${apiBase || 'https://<this explorer>'}/api/v2/addresses/${address ?? '0x…'}/transactions/csv?from_period=2024-01-01&to_period=2024-12-31`;
  return {
    title: address ? `CSV export of ${address} · Explorer` : 'CSV exports · Explorer',
    description: "Download an address's transactions, token transfers, internal transactions or logs as CSV, over any date or block range, with no row limit.",
    body: (
      <>
        <h1>CSV exports</h1>
        <p class="csv-intro">
          Any address's transactions, token transfers, internal transactions and logs can be downloaded as a CSV file, over a range of dates or blocks. There is no
          row limit: the file is written while it is read from the database, a chunk at a time, so an export of millions of rows arrives whole (Blockscout stops at
          10,000 rows, Etherscan at 5,000). The columns are Blockscout's, so tools made for its files read these.
        </p>
        {address ? (
          <section class="card" aria-labelledby="csv-address">
            <h2 id="csv-address">Export the lists of</h2>
            <p class="csv-of">
              <AddressLink a={getAddress(address)} full />
            </p>
            {KINDS.map((k) => (
              <CsvExport address={address} kind={k.kind} apiBase={apiBase} now={ctx.now} />
            ))}
          </section>
        ) : (
          <section class="card">
            <form class="token-search" action="/csv" method="get" aria-label="Export an address">
              <label class="sr-only" for="csv-address-input">
                Address to export
              </label>
              <input id="csv-address-input" name="address" placeholder="Address to export (0x…)" autocomplete="off" spellcheck={false} required />
              <button type="submit">Continue</button>
            </form>
            <p class="muted">Or use the Download CSV forms on an address page.</p>
          </section>
        )}
        <section class="card" aria-labelledby="csv-api">
          <h2 id="csv-api">From the API</h2>
          <p>One GET request per list; the answer is the file (application/csv), sent as it is produced:</p>
          <ul class="csv-paths">
            {KINDS.map((k) => (
              <li>
                <code>/api/v2/addresses/{'{hash}'}/{k.kind}/csv</code> <span class="muted">({k.order})</span>
              </li>
            ))}
          </ul>
          <dl class="details">
            {PARAMS.map(([name, text]) => (
              <div class="row">
                <dt>
                  <code>{name}</code>
                </dt>
                <dd>{text}</dd>
              </div>
            ))}
          </dl>
          <p>For example:</p>
          <pre class="data" tabindex={0} role="region" aria-label="Example">curl -o transactions.csv "{example}"</pre>
          <p class="muted">
            A bad parameter is answered 422 with the reason per parameter, an address the chain never showed 404, before any row is sent. Exports count against the
            same rate limit as every API request.
          </p>
        </section>
        {KINDS.map((k) => (
          <section class="card" aria-labelledby={`csv-cols-${k.kind}`}>
            <h2 id={`csv-cols-${k.kind}`}>
              {k.title} <span class="muted csv-order">{k.order}</span>
            </h2>
            <dl class="details">
              {k.columns.map(([name, text]) => (
                <div class="row">
                  <dt>
                    <code>{name}</code>
                  </dt>
                  <dd>{text}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </>
    ),
  };
}
