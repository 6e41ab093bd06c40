// What an account form says when the Account API refuses a change (src/ui/pages/account/account-forms.tsx),
// the answer it gives (the form again with the API's status, or sign-in when the session is over),
// the same-origin `next` of the private-tag form and the ABI summary of the custom ABI list.
import t from 'tap';
import { apiProblem, formStatus, refused } from '../../../src/ui/pages/account/account-forms.js';
import { samePath } from '../../../src/ui/pages/account/records.js';
import { abiSummary } from '../../../src/ui/pages/account/custom-abis.js';
import type { PageCtx } from '../../../src/ui/page.js';

t.test('a 429 says how long to wait, from Retry-After', async (t) => {
  t.equal(apiProblem({ status: 429, body: { message: 'Too Many Requests' }, headers: { 'retry-after': '7' } }, 'The tag could not be saved'), 'Too many requests. Try again in 7 seconds.');
  t.equal(apiProblem({ status: 429, body: null, headers: { 'retry-after': '1' } }, 'x'), 'Too many requests. Try again in 1 second.', 'one second, singular');
  t.equal(apiProblem({ status: 429, body: null, headers: { 'retry-after': '0.2' } }, 'x'), 'Too many requests. Try again in 1 second.', 'a part of a second rounds up');
  t.equal(apiProblem({ status: 429, body: null }, 'x'), 'Too many requests. Try again in a moment.', 'no Retry-After: no made-up number');
  t.equal(apiProblem({ status: 429, body: null, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' } }, 'x'), 'Too many requests. Try again in a moment.', 'an HTTP date is not read as seconds');
});

t.test("the API's own words for a 400, else words for what happened", async (t) => {
  t.equal(apiProblem({ status: 400, body: { message: 'name: at most 35 characters' } }, 'The tag could not be saved'), 'name: at most 35 characters');
  t.equal(apiProblem({ status: 400, body: {} }, 'The tag could not be saved'), 'The tag could not be saved.', 'no message: the fallback');
  t.equal(apiProblem({ status: 413, body: { message: 'body too large' } }, 'x'), 'body too large');
  t.match(apiProblem({ status: 401, body: { message: 'Invalid API key' } }, 'x'), /session has ended/);
  t.match(apiProblem({ status: 404, body: null }, 'The key could not be revoked'), /^The key could not be revoked: it no longer exists/);
  t.match(apiProblem({ status: 503, body: null }, 'The ABI could not be saved'), /^The ABI could not be saved \(the explorer answered 503\)/);
});

t.test('a refused change: the form again with the status, or sign-in when the session is over', async (t) => {
  const ctx = { url: new URL('http://ui/account/tags/5/edit') } as PageCtx;
  const page = { title: 'Edit a private tag', body: undefined };
  t.same(refused(ctx, { status: 429, body: null, headers: { 'retry-after': '3' } }, page), { page: { title: 'Edit a private tag', body: undefined, status: 429, cache: false } });
  t.same(refused(ctx, { status: 400, body: null }, page), { page: { title: 'Edit a private tag', body: undefined, status: 400, cache: false } });
  t.same(refused(ctx, { status: 401, body: null }, page), { redirect: '/account/sign-in?next=%2Faccount%2Ftags%2F5%2Fedit', session: null }, 'session cleared, back here after signing in');
  t.equal(formStatus({ status: 500, body: null }), 502, "the API's failure is a bad gateway, not the UI's own 500");
});

t.test('`next` of the tag form is a path of this site only', async (t) => {
  t.equal(samePath('/address/0x0000000000000000000000000000000000000001'), '/address/0x0000000000000000000000000000000000000001');
  t.equal(samePath('/address/0xab?tab=txs'), '/address/0xab?tab=txs');
  for (const bad of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'address/0x1', '/a b', '', null, undefined, `/${'a'.repeat(600)}`]) {
    t.equal(samePath(bad), null, `refused: ${JSON.stringify(bad)?.slice(0, 40)}`);
  }
});

t.test('an ABI is summed up by its functions and events', async (t) => {
  t.equal(abiSummary([{ type: 'function' }, { type: 'function' }, { type: 'event' }, { type: 'error' }, { type: 'constructor' }]), '2 functions, 1 event');
  t.equal(abiSummary([{ type: 'event' }]), '0 functions, 1 event');
});
