// The "Download CSV" forms of an address's list: by date or by block, plain GET forms to the
// API's export path (/api/v2/addresses/{hash}/{kind}/csv, streamed by the API), so they work
// without JavaScript and the browser saves the file the API names. The API's origin is `apiBase`:
// '' when the API is served on the UI's own origin (behind the shipped reverse proxy), else e.g.
// http://localhost:4000 (explorer start: API_PORT); the UI's CSP form-action must allow it.

export type CsvKind = 'transactions' | 'token-transfers' | 'internal-transactions' | 'logs';

const WHAT: Record<CsvKind, string> = {
  transactions: 'transactions',
  'token-transfers': 'token transfers',
  'internal-transactions': 'internal transactions',
  logs: 'logs',
};

/** YYYY-MM-DD (UTC) of a time in milliseconds. */
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function CsvExport({ address, kind, apiBase = '', now }: { address: string; kind: CsvKind; apiBase?: string; now?: number }) {
  const action = `${apiBase.replace(/\/+$/, '')}/api/v2/addresses/${address}/${kind}/csv`;
  const id = `csv-${kind}`;
  // Logs have no direction; the others can keep only incoming or outgoing rows.
  const direction =
    kind === 'logs' ? null : (
      <label class="csv-field">
        <span>Direction</span>
        <select name="filter_value">
          <option value="null">In and out</option>
          <option value="to">Incoming</option>
          <option value="from">Outgoing</option>
        </select>
      </label>
    );
  return (
    <section class="csv-export" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        Download {WHAT[kind]} as CSV <a class="more" href="/csv">What is in the file?</a>
      </h3>
      <div class="csv-forms">
        <form method="get" action={action} aria-label={`${WHAT[kind]} by date`}>
          <label class="csv-field">
            <span>From date</span>
            <input type="date" name="from_period" required value={now === undefined ? undefined : day(now - 29 * 86_400_000)} />
          </label>
          <label class="csv-field">
            <span>To date</span>
            <input type="date" name="to_period" required value={now === undefined ? undefined : day(now)} />
          </label>
          {direction ? <input type="hidden" name="filter_type" value="address" /> : null}
          {direction}
          <button type="submit">Download CSV</button>
        </form>
        <form method="get" action={action} aria-label={`${WHAT[kind]} by block`}>
          <label class="csv-field">
            <span>From block</span>
            <input type="number" name="from_block" min={0} step={1} required inputMode="numeric" />
          </label>
          <label class="csv-field">
            <span>To block</span>
            <input type="number" name="to_block" min={0} step={1} inputMode="numeric" placeholder="latest" />
          </label>
          {direction ? <input type="hidden" name="filter_type" value="address" /> : null}
          {direction}
          <button type="submit">Download CSV</button>
        </form>
      </div>
    </section>
  );
}
