// The UI passes the API's CSV exports through on its own origin (src/ui/ui-server.ts): the rows an
// export reads are charged to the visitor's bucket of the UI's rate limit, as the API's gateway
// charges them, so a visitor cannot export through the UI faster than through the API.
import t from 'tap';
import { createUi } from '../../../src/ui/ui-server.js';
import { createLogger } from '../../../src/log.js';
import type { ApiClient } from '../../../src/ui/api-client.js';
import type { ApiRequest } from '../../../src/api/http.js';

t.test("an export's rows are charged to the visitor through the UI", async (t) => {
  const passed: ApiRequest[] = [];
  const api = {
    // The API's export: 5,000 rows read, charged through the request's meter.
    async raw(req: ApiRequest) {
      passed.push(req);
      req.meter?.read(5000, 500);
      return { status: 200, headers: { 'content-type': 'application/csv; charset=utf-8' }, body: 'TxHash\r\n' };
    },
  } as unknown as ApiClient;
  const ui = createUi({ api, log: createLogger('ui'), coin: 'ETH', ratePerSecond: 1 });
  const csv = (ip: string) =>
    ui.handle({ method: 'GET', path: `/api/v2/addresses/0x${'ab'.repeat(20)}/transactions/csv`, query: new URLSearchParams('from_period=null&to_period=null'), headers: {}, ip });
  t.equal((await csv('192.0.2.1')).status, 200, 'an export passes');
  t.equal(passed[0].meter?.client, 'ip:192.0.2.1', "with the visitor's meter");
  const next = await csv('192.0.2.1');
  t.equal(next.status, 429, 'its 5,000 rows (10 tokens) leave the visitor in debt: the next waits');
  t.ok(Number(next.headers['retry-after']) >= 9, `for the debt to be refilled (Retry-After ${next.headers['retry-after']})`);
  t.equal((await csv('192.0.2.2')).status, 200, 'another visitor is not charged');
});
