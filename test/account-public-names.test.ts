// Public names (#19) end to end on the indexed devnet: a project submits a name, tags, website,
// icon and links for its token with a signature by the deployer; the operator approves it from
// the `explorer admin` CLI (its function, in-process) and through the admin Account API; the name,
// tags and icon then show in address objects, the token list and search, and are gone again after
// a rejection or a revert. Bad icons and text are refused; non-admins get 404 on admin paths.
import t, { type Test } from 'tap';
import http from 'node:http';
import sharp from 'sharp';
import { privateKeyToAccount } from 'viem/accounts';
import { apiWithDerived } from './helpers/api-derived.js';
import { makeRequest, newAccount, parseReply, type Res } from './helpers/account.js';
import { rpcCall } from './helpers/api.js';
import { runAdmin } from '../src/account/admin-cli.js';
import { createPublicNames, submissionMessage } from '../src/account/public-names.js';
import { checkIcon } from '../src/account/icons.js';
import { image } from './helpers/images.js';

/** Anvil's dev account #0: it deploys the scenario's contracts (and owns DevnetToken). */
const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
/** Dev account #1: no contract of the scenario is its. */
const STRANGER_KEY = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

const png = (w: number, h: number) => image('png', w, h);

const SVG = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

/** A loopback server answering each path with the given bytes. */
async function iconHost(t: Test, files: Record<string, Buffer>): Promise<string> {
  const server = http.createServer((req, res) => {
    const body = files[req.url ?? ''];
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

t.test('submissions, review, and where approved names show', async (t) => {
  const f = await apiWithDerived(t, {
    serve: true,
    account: {
      publicUrl: 'https://explorer.test',
      publicNames: {
        allowPrivateIconHosts: true,
        submissionsPerHour: 100,
        ownerOf: async (a) => `0x${(await rpcCall<string>(f.devnet.url, 'eth_call', [{ to: a, data: '0x8da5cb5b' }, 'latest'])).slice(26)}`,
      },
    },
  });
  const pg = f.stores.pg;
  const gw = f.server!.handle;
  const call = async (method: string, path: string, token: string | undefined, body?: unknown, raw?: Buffer): Promise<Res> =>
    parseReply(await gw(makeRequest(method, path.startsWith('/api/') ? path : `/account/api/v1${path}`, { token, ...(raw ? { rawBody: raw } : body !== undefined ? { body } : {}) })));
  const token = f.devnet.scenario.contracts.DevnetToken;
  const tokenLc = token.toLowerCase();
  const eoa = f.devnet.scenario.accounts[2]!;

  const project = await newAccount(pg, 'project@example.org');
  const operator = await newAccount(pg, 'operator@example.org');
  const out: string[] = [];
  const cli = async (...args: string[]) => {
    out.length = 0;
    const code = await runAdmin(pg, args, { out: (s) => out.push(s), err: (s) => out.push(s), actor: 'cli:tester', instance: 'explorer.test' });
    return { code, json: code === 0 ? JSON.parse(out.join('')) : out.join('') };
  };
  t.equal((await cli('grant', 'operator@example.org')).code, 0, 'explorer admin grant <e-mail>');
  t.equal((await cli('grant', 'nobody@example.org')).code, 1, 'an unknown account is not granted');
  t.equal((await cli('frobnicate')).code, 2, 'a usage error');

  // ---- icons ----
  const up = await call('POST', '/user/public-icons', project.token, undefined, await png(32, 32));
  t.equal(up.status, 201, 'a PNG upload is accepted');
  t.match(up.body.data.icon, /^[0-9a-f]{64}\.png$/);
  t.match(up.body.data.icon_url, /^https:\/\/explorer\.test\/api\/v2\/public-icons\//, 'its URL is absolute, under PUBLIC_URL');
  const served = await gw(makeRequest('GET', new URL(up.body.data.icon_url).pathname));
  t.equal(served.status, 200, 'the icon is served by the API itself');
  t.equal(served.headers['content-type'], 'image/png');
  t.equal(served.headers['x-content-type-options'], 'nosniff');
  t.equal(served.headers['content-security-policy'], "default-src 'none'");
  t.equal((await sharp(served.body as Buffer).metadata()).width, 32, 'the stored PNG decodes (it was re-encoded)');

  const svg = await call('POST', '/user/public-icons', project.token, undefined, SVG);
  t.equal(svg.status, 422, 'an SVG with a script is refused');
  t.match(svg.body.message, /SVG/);
  const text = await call('POST', '/user/public-icons', project.token, undefined, Buffer.from('just some text, not an image\n'));
  t.equal(text.status, 422, 'a text file is refused');
  t.match(text.body.message, /not a PNG, JPEG, WebP or GIF/);
  const huge = Buffer.alloc(20 * 1024 * 1024);
  (await png(8, 8)).copy(huge);
  const big = await call('POST', '/user/public-icons', project.token, undefined, huge);
  t.equal(big.status, 413, 'a 20 MB image is refused before it is read');
  await t.rejects(checkIcon(await png(2048, 16), 1 << 20), /1x1 to 1024x1024/, 'dimensions over 1024 are refused');
  const fakePng = Buffer.concat([(await png(4, 4)).subarray(0, 40), Buffer.from('<script>')]);
  await t.rejects(checkIcon(fakePng, 1 << 20), /does not decode/, 'a PNG header on something else is refused');

  const host = await iconHost(t, { '/logo.png': await png(64, 64), '/evil.svg': SVG, '/big.png': huge });
  const base = { address_hash: token, name: 'Devnet Project' };
  const viaSvgUrl = await call('POST', '/user/public-names', project.token, { ...base, icon_url: `${host}/evil.svg` });
  t.equal(viaSvgUrl.status, 422, 'an icon URL serving an SVG is refused');
  t.match(viaSvgUrl.body.message, /SVG/);
  const viaBigUrl = await call('POST', '/user/public-names', project.token, { ...base, icon_url: `${host}/big.png` });
  t.equal(viaBigUrl.status, 422, 'an icon URL serving 20 MB is refused (size cap)');
  t.match(viaBigUrl.body.message, /larger than/);

  // ---- bad submissions ----
  const script = await call('POST', '/user/public-names', project.token, { ...base, name: 'Evil <script>alert(1)</script>' });
  t.equal(script.status, 400, 'markup in a name is refused');
  t.match(script.body.message, /must not contain < or >/);
  const badTag = await call('POST', '/user/public-names', project.token, { ...base, tags: ['ok', '<b>'] });
  t.equal(badTag.status, 400, 'markup in a tag is refused');
  const unknown = await call('POST', '/user/public-names', project.token, { ...base, address_hash: `0x${'12'.repeat(20)}` });
  t.equal(unknown.status, 422, 'an address this explorer never saw is refused');
  t.match(unknown.body.message, /not an address this explorer has seen/);
  const linksOnEoa = await call('POST', '/user/public-names', project.token, { address_hash: eoa, name: 'x', links: { twitter: 'https://x.com/a' } });
  t.equal(linksOnEoa.status, 400, 'official links are for tokens');
  const anon = await call('POST', '/user/public-names', undefined, base);
  t.equal(anon.status, 401, 'submitting needs an account');

  // ---- a signed submission for the token ----
  const msg = await call('GET', `/user/public-names/message?address_hash=${token}&name=${encodeURIComponent('Devnet Project')}`, project.token);
  t.equal(msg.body.data.message, submissionMessage('explorer.test', token, 'Devnet Project'), 'the message to sign names the instance and the submission');
  const signature = await DEPLOYER.signMessage({ message: msg.body.data.message });
  const sub = await call('POST', '/user/public-names', project.token, {
    ...base,
    tags: ['exchange', 'Bridge Ops'],
    website: 'https://devnet.example',
    description: 'A token of the devnet. 1 < 2 is kept as text.',
    icon_url: `${host}/logo.png`,
    links: { twitter: 'https://x.com/devnet', github: 'https://github.com/devnet' },
    signature,
  });
  t.equal(sub.status, 201, 'submitted');
  const s = sub.body.data;
  t.equal(s.status, 'pending');
  t.equal(s.kind, 'token');
  t.equal(s.signer, DEPLOYER.address, 'the signature recovers to the deployer');
  t.match(s.icon_url, /^https:\/\/explorer\.test\/api\/v2\/public-icons\/[0-9a-f]{64}\.png$/, 'the icon URL was fetched once and stored here');
  t.equal(s.description, 'A token of the devnet. 1 < 2 is kept as text.');

  // An EOA's submission signed by someone else.
  const other = await call('POST', '/user/public-names', project.token, {
    address_hash: eoa,
    name: 'Dev Two',
    tags: ['market maker'],
    signature: await STRANGER_KEY.signMessage({ message: submissionMessage('explorer.test', eoa, 'Dev Two') }),
  });
  t.equal(other.status, 201);

  t.same((await call('GET', '/user/public-names', project.token)).body.data.map((x: { id: string }) => x.id), [other.body.data.id, s.id], 'the author sees their submissions');

  // ---- non-admins ----
  for (const [m, p] of [['GET', '/admin/public-names'], ['GET', `/admin/public-names/${s.id}`], ['POST', `/admin/public-names/${s.id}/approve`], ['GET', '/admin/public-name-decisions']] as const) {
    t.equal((await call(m, p, project.token)).status, 404, `a non-admin gets 404 on ${m} ${p}`);
  }

  // ---- review ----
  const pending = await call('GET', '/admin/public-names?status=pending', operator.token);
  t.equal(pending.status, 200);
  t.same(pending.body.data.map((x: { id: string }) => x.id), [s.id, other.body.data.id], 'pending submissions, oldest first');
  const review = (await call('GET', `/admin/public-names/${s.id}`, operator.token)).body.data;
  t.equal(review.proof.signer, DEPLOYER.address);
  t.equal(review.proof.signer_is_deployer, true, 'the reviewer sees the signer deployed the contract');
  t.equal(review.proof.signer_is_owner, true, "and is its current owner() (the node's answer)");
  t.equal(review.proof.signed_message, msg.body.data.message);
  const review2 = (await call('GET', `/admin/public-names/${other.body.data.id}`, operator.token)).body.data;
  t.equal(review2.proof.signer_is_deployer, false, 'a signer that is no deployer is shown as such');

  const addressOf = async (h: string) => (await f.get(`/api/v2/addresses/${h}`)).body;
  const before = await addressOf(token);
  t.equal(before.name, null, 'not shown before approval (the contract is not verified)');
  t.same(before.public_tags, []);

  // Approved from the CLI (as from another process: the API picks it up within a second).
  const approved = await cli('approve', s.id, '--note', 'deployer signed');
  t.equal(approved.code, 0, 'explorer admin approve');
  t.equal(approved.json.actor, 'cli:tester');
  const until = async (what: string, ok: () => Promise<boolean>) => {
    const end = Date.now() + 5000;
    while (!(await ok())) {
      if (Date.now() > end) return t.fail(`${what}: not within 5 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    t.pass(what);
  };
  await until('the CLI approval shows in the API', async () => (await addressOf(token)).name === 'Devnet Project');
  const shown = await addressOf(token);
  t.same(
    shown.public_tags,
    [
      { address_hash: token, display_name: 'exchange', label: 'exchange' },
      { address_hash: token, display_name: 'Bridge Ops', label: 'bridge-ops' },
    ],
    'public_tags as Blockscout shapes them',
  );
  t.same(shown.private_tags, [], 'never private tags');
  t.equal(shown.token.icon_url, s.icon_url, "the address's token carries the icon");
  const tokenPage = (await f.get(`/api/v2/tokens/${token}`)).body;
  t.equal(tokenPage.icon_url, s.icon_url, '/tokens/{h} carries the icon');
  const list = (await f.get('/api/v2/tokens')).body.items.find((i: { address_hash: string }) => i.address_hash === token);
  t.equal(list.icon_url, s.icon_url, '/tokens carries the icon');
  const search = (await f.get(`/api/v2/search?q=${token}`)).body.items;
  const tItem = search.find((i: { type: string }) => i.type === 'token');
  t.equal(tItem.is_verified_via_admin_panel, true, 'the search item says the operator approved it');
  t.equal(tItem.icon_url, s.icon_url);
  t.equal(search.find((i: { type: string }) => i.type === 'address').name, 'Devnet Project');
  const byName = (await f.get('/api/v2/search?q=devnet%20proj')).body.items;
  t.ok(byName.some((i: { type: string; address_hash: string }) => i.type === 'address' && i.address_hash === token), 'search finds the approved name');
  const quick = (await f.get('/api/v2/search/quick?q=bridge%20ops')).body;
  t.ok(quick.some((i: { address_hash?: string }) => i.address_hash === token), 'quick search finds an approved tag');
  // A transfer of the token names it in nested address objects too.
  const transfers = (await f.get(`/api/v2/tokens/${token}/transfers`)).body.items;
  t.equal(transfers[0].token.icon_url, s.icon_url, 'token transfers carry the icon');

  // Reverted from the CLI: gone again.
  const reverted = await cli('revert', approved.json.id);
  t.equal(reverted.code, 0, 'explorer admin revert');
  await until('the CLI revert shows in the API', async () => (await addressOf(token)).name === null);
  t.same((await addressOf(token)).public_tags, []);
  t.equal((await f.get(`/api/v2/tokens/${token}`)).body.icon_url, null, 'no icon after the revert');
  t.equal((await cli('revert', approved.json.id)).code, 1, 'a reverted decision is not reverted twice');

  // Through the admin API: shown at once (the decision clears the caches in this process).
  const viaApi = await call('POST', `/admin/public-names/${s.id}/approve`, operator.token);
  t.equal(viaApi.status, 200, 'approved through the admin API');
  t.equal(viaApi.body.data.actor, `account:${operator.userId}`);
  t.equal((await addressOf(token)).name, 'Devnet Project', 'shown at once');
  const edited = await call('PATCH', `/admin/public-names/${s.id}`, operator.token, { name: 'Devnet Project (edited)', tags: ['exchange'] });
  t.equal(edited.status, 200, 'edited');
  t.equal((await addressOf(token)).name, 'Devnet Project (edited)', 'the edit shows at once');
  t.same((await addressOf(token)).public_tags.map((x: { label: string }) => x.label), ['exchange']);
  const badEdit = await call('PATCH', `/admin/public-names/${s.id}`, operator.token, { name: '<i>' });
  t.equal(badEdit.status, 400, 'an edit is validated like a submission');
  const rejected = await call('POST', `/admin/public-names/${s.id}/reject`, operator.token, { note: 'changed my mind' });
  t.equal(rejected.status, 200, 'rejected');
  t.equal((await addressOf(token)).name, null, 'gone at once after the rejection');
  t.equal((await f.get(`/api/v2/search?q=${token}`)).body.items.find((i: { type: string }) => i.type === 'token').is_verified_via_admin_panel, false);
  // Older decisions wait for the later ones: the edit cannot be reverted before the rejection.
  t.equal((await call('POST', `/admin/public-name-decisions/${edited.body.data.id}/revert`, operator.token)).status, 409, 'reverting out of order is a conflict');
  const undo = await call('POST', `/admin/public-name-decisions/${rejected.body.data.id}/revert`, operator.token);
  t.equal(undo.status, 200, 'the rejection reverted');
  t.equal((await addressOf(token)).name, 'Devnet Project (edited)', 'shown again after reverting the rejection');

  const history = (await call('GET', `/admin/public-name-decisions?submission_id=${s.id}`, operator.token)).body.data;
  t.same(
    history.map((d: { action: string; actor: string }) => `${d.action} ${d.actor}`),
    ['revert', 'reject', 'edit', 'approve', 'revert', 'approve'].map((a, i) => `${a} ${i >= 4 ? 'cli:tester' : `account:${operator.userId}`}`),
    'every decision is recorded: who and what, newest first',
  );
  t.equal(history[2].before.submission.name, 'Devnet Project', 'with what it changed');
  t.equal(history[2].after.submission.name, 'Devnet Project (edited)');

  // An EOA's name, approved through the API: in every address object naming it.
  t.equal((await call('POST', `/admin/public-names/${other.body.data.id}/approve`, operator.token)).status, 200);
  const eoaObj = await addressOf(eoa);
  t.equal(eoaObj.name, 'Dev Two');
  t.same(eoaObj.public_tags, [{ address_hash: eoa, display_name: 'market maker', label: 'market-maker' }]);
  const txs = (await f.get(`/api/v2/addresses/${eoa}/transactions`)).body.items;
  t.ok(txs.length > 0 && txs.some((x: { from: { hash: string; name: string } }) => x.from.hash === eoa && x.from.name === 'Dev Two'), "nested address objects carry it (a transaction's from)");

  // The CLI's other commands.
  const showCli = await cli('show', s.id);
  t.equal(showCli.code, 0, 'explorer admin show');
  t.equal(showCli.json.proof.signer_is_deployer, true, 'with the proof');
  t.equal(showCli.json.decisions.length, 6, 'and the decisions');
  t.equal((await cli('show', 'abc')).code, 1, 'an id that names no submission is refused');
  t.same((await cli('list', '--status', 'approved')).json.map((x: { id: string }) => x.id), [s.id, other.body.data.id], 'explorer admin list --status');
  const linksEdit = await call('PATCH', `/admin/public-names/${other.body.data.id}`, operator.token, { links: { twitter: 'https://x.com/a' } });
  t.equal(linksEdit.status, 400, 'links are for tokens in an edit too');
  t.equal((await cli('edit', other.body.data.id, '--tags', 'market maker, otc', '--note', 'added otc')).code, 0, 'explorer admin edit');
  await until('the CLI edit shows in the API', async () => (await addressOf(eoa)).public_tags.length === 2);
  t.equal((await cli('decisions', other.body.data.id)).json[0].note, 'added otc', 'explorer admin decisions');

  // A revoked admin is a stranger again.
  t.equal((await cli('revoke', operator.userId)).code, 0);
  t.equal((await call('GET', '/admin/public-names', operator.token)).status, 404);

  // Submissions are rate-limited per account (PUBLIC_NAME_SUBMISSIONS_PER_HOUR).
  const busy = await newAccount(pg, 'busy@example.org');
  const limited = createPublicNames(pg, { instance: 'explorer.test', submissionsPerHour: 2 });
  await limited.submit(busy.userId, base);
  await limited.submit(busy.userId, base);
  await t.rejects(limited.submit(busy.userId, base), { status: 429, message: /at most 2 public-name submissions/ }, 'the third within the hour is refused');
  const calm = await newAccount(pg, 'calm@example.org');
  t.ok(await limited.submit(calm.userId, base), 'another account has its own allowance');
});
