// Sign-In with Ethereum is bound to the instance's PUBLIC_URL and chain, never to the request's
// Host header: a signature relayed from another site, a foreign URI or chain id is refused, SIWE
// without PUBLIC_URL is refused with a message naming it, and nonces are independent random values.
// Messages are real EIP-4361 messages signed by a viem local account.
import t from 'tap';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { accountApp, accountPg, client, dump, movableClock } from './helpers/account.js';

const ORIGIN = 'https://explorer.example.org';
const CHAIN = 10;

/** Length of the longest substring two strings share. */
function longestCommon(a: string, b: string): number {
  let best = 0;
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) {
        cur[j] = prev[j - 1] + 1;
        if (cur[j] > best) best = cur[j];
      }
    }
    prev = cur;
  }
  return best;
}

t.test('SIWE binds to PUBLIC_URL and the chain id', async (t) => {
  const pg = await accountPg(t);
  const clock = movableClock();
  const app = await accountApp(t, pg, { clock: clock.now, publicUrl: ORIGIN, chainId: CHAIN });
  const call = client(app.handle);
  const wallet = privateKeyToAccount(generatePrivateKey());

  const nonce = async () => {
    const r = await call('GET', '/auth/siwe/nonce', { headers: { host: 'evil.example' } });
    t.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as { nonce: string; domain: string; uri: string; chain_id: number };
  };
  const sign = async (o: { nonce: string; domain?: string; uri?: string; chainId?: number; scheme?: string }) => {
    const message = createSiweMessage({
      address: wallet.address,
      chainId: o.chainId ?? CHAIN,
      domain: o.domain ?? 'explorer.example.org',
      nonce: o.nonce,
      uri: o.uri ?? `${ORIGIN}/login`,
      version: '1',
      scheme: o.scheme,
      issuedAt: new Date(clock.now()),
      statement: 'Sign in to the explorer',
    });
    return { message, signature: await wallet.signMessage({ message }) };
  };

  const first = await nonce();
  t.same(
    { domain: first.domain, uri: first.uri, chain_id: first.chain_id },
    { domain: 'explorer.example.org', uri: ORIGIN, chain_id: CHAIN },
    'the nonce says what to sign, whatever Host the request names',
  );

  const before = await dump(pg);
  // The relay: a page on evil.example has the victim sign a message for evil.example and posts it
  // with Host: evil.example. The Host header must not decide the domain.
  const relayed = await call('POST', '/auth/siwe/verify', {
    headers: { host: 'evil.example' },
    body: await sign({ nonce: first.nonce, domain: 'evil.example', uri: 'https://evil.example/login' }),
  });
  t.equal(relayed.status, 401, 'a message for evil.example posted with Host: evil.example is refused');
  t.match(relayed.body.message, /domain evil\.example, but this explorer is explorer\.example\.org/);

  const wrongUri = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: (await nonce()).nonce, uri: 'https://evil.example/login' }) });
  t.equal(wrongUri.status, 401, 'a URI on another origin is refused');
  t.match(wrongUri.body.message, /URI https:\/\/evil\.example\/login is not on https:\/\/explorer\.example\.org/);

  const httpUri = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: (await nonce()).nonce, uri: 'http://explorer.example.org/login' }) });
  t.equal(httpUri.status, 401, 'the same host over another scheme is another origin');

  const wrongScheme = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: (await nonce()).nonce, scheme: 'http' }) });
  t.equal(wrongScheme.status, 401, 'a message naming another scheme is refused');
  t.match(wrongScheme.body.message, /scheme http/);

  const wrongChain = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: (await nonce()).nonce, chainId: 1 }) });
  t.equal(wrongChain.status, 401, 'another chain id is refused');
  t.match(wrongChain.body.message, /chain id 1, but this explorer indexes chain id 10/);

  const after = await dump(pg);
  t.same(after.users, before.users, 'no account was made by a refused message');
  t.same(after.sessions, before.sessions, 'and no session');

  const good = await call('POST', '/auth/siwe/verify', { headers: { host: 'internal:4000' }, body: await sign({ nonce: (await nonce()).nonce, scheme: 'https' }) });
  t.equal(good.status, 200, `the right domain, URI and chain id sign in, whatever the Host header: ${JSON.stringify(good.body)}`);
  const info = await call('GET', '/user/info', { token: good.body.data.token });
  t.equal(info.status, 200);
  t.equal(info.body.data.address_hash, wallet.address);

  const upper = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: (await nonce()).nonce, domain: 'Explorer.Example.org' }) });
  t.equal(upper.status, 200, 'host names compare without regard to letter case');
});

t.test('without PUBLIC_URL SIWE is refused with a message naming it', async (t) => {
  const pg = await accountPg(t);
  const app = await accountApp(t, pg, { publicUrl: undefined, chainId: 1 });
  const call = client(app.handle);
  const n = await call('GET', '/auth/siwe/nonce', { headers: { host: 'explorer.test' } });
  t.equal(n.status, 503, 'no nonce');
  t.match(n.body.message, /PUBLIC_URL/);
  const wallet = privateKeyToAccount(generatePrivateKey());
  const message = createSiweMessage({
    address: wallet.address,
    chainId: 1,
    domain: 'explorer.test',
    nonce: 'abcdefgh12345678',
    uri: 'https://explorer.test/login',
    version: '1',
  });
  const v = await call('POST', '/auth/siwe/verify', { headers: { host: 'explorer.test' }, body: { message, signature: await wallet.signMessage({ message }) } });
  t.equal(v.status, 503, 'a message for the Host header is not accepted instead');
  t.match(v.body.message, /PUBLIC_URL/);
  t.same((await dump(pg)).siwe_nonces, [], 'nothing stored');
});

t.test('the chain id: asked from the node once, refused clearly while unknown', async (t) => {
  const pg = await accountPg(t);
  let asked = 0;
  let up = false;
  const app = await accountApp(t, pg, {
    publicUrl: ORIGIN,
    chainId: async () => {
      asked++;
      if (!up) throw new Error('connection refused');
      return CHAIN;
    },
  });
  const call = client(app.handle);
  const down = await call('GET', '/auth/siwe/nonce');
  t.equal(down.status, 503, 'the node does not answer: 503, not 500');
  t.match(down.body.message, /chain id could not be read/);
  up = true;
  t.equal((await call('GET', '/auth/siwe/nonce')).body.data.chain_id, CHAIN);
  t.equal((await call('GET', '/auth/siwe/nonce')).body.data.chain_id, CHAIN);
  t.equal(asked, 2, 'asked until known, then kept');

  const none = await accountApp(t, pg, { publicUrl: ORIGIN, chainId: undefined });
  const r = await client(none.handle)('GET', '/auth/siwe/nonce');
  t.equal(r.status, 503);
  t.match(r.body.message, /CHAIN_ID/);
});

t.test('nonces are independent random values', async (t) => {
  const pg = await accountPg(t);
  const app = await accountApp(t, pg);
  const call = client(app.handle);
  const nonces: string[] = [];
  for (let i = 0; i < 40; i++) {
    const r = await call('GET', '/auth/siwe/nonce');
    t.equal(r.status, 200);
    nonces.push(r.body.data.nonce);
  }
  t.equal(new Set(nonces).size, nonces.length, 'all different');
  t.ok(nonces.every((n) => /^[A-Za-z0-9]{32,}$/.test(n)), 'EIP-4361 form, 128 bits or more');
  let worst = 0;
  for (let i = 1; i < nonces.length; i++) worst = Math.max(worst, longestCommon(nonces[i - 1], nonces[i]));
  // Random 32-hex-digit values share 8 digits in a row with odds about 1 in 10^7 per pair;
  // nonces cut from one shifted buffer share all but one character.
  t.ok(worst < 8, `consecutive nonces share at most ${worst} characters in a row`);
});
