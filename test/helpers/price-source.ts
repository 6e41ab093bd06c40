// A stub CoinGecko-compatible price source on loopback, for tests: /simple/price for the coin id
// "ethereum" and /simple/token_price/ethereum by contract address, answering what the test sets;
// it can fail (HTTP 500) or hang (no answer) instead. Closed when the test ends.
import type { Test } from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubPriceSource {
  /** Base URL, as EXCHANGE_RATES_URL (http://127.0.0.1:<port>/api/v3). */
  url: string;
  coin: { usd: number; usd_market_cap: number } | null;
  tokens: Record<string, { usd: number; usd_market_cap: number; usd_24h_vol: number }>;
  mode: 'ok' | 'fail' | 'hang';
  /** Every request: its path and query, and the pro API key header it sent. */
  asked: { url: string; key: string | undefined }[];
}

export async function stubPriceSource(t: Test): Promise<StubPriceSource> {
  const hanging: http.ServerResponse[] = [];
  const stub: StubPriceSource = { url: '', coin: null, tokens: {}, mode: 'ok', asked: [] };
  const server = http.createServer((req, res) => {
    stub.asked.push({ url: req.url ?? '', key: req.headers['x-cg-pro-api-key'] as string | undefined });
    if (stub.mode === 'hang') return void hanging.push(res);
    if (stub.mode === 'fail') {
      res.statusCode = 500;
      return void res.end('{"error":"down"}');
    }
    const u = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (u.pathname === '/api/v3/simple/price') {
      return void res.end(JSON.stringify(stub.coin && u.searchParams.get('ids') === 'ethereum' ? { ethereum: stub.coin } : {}));
    }
    if (u.pathname === '/api/v3/simple/token_price/ethereum') {
      const out: Record<string, unknown> = {};
      for (const a of (u.searchParams.get('contract_addresses') ?? '').split(',')) if (stub.tokens[a]) out[a] = stub.tokens[a];
      return void res.end(JSON.stringify(out));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    for (const r of hanging) r.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
  return stub;
}
