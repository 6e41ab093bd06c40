// Signed-in browser contexts for the account UI tests: a wallet injected into the page (an
// EIP-1193 provider whose personal_sign signs with a local viem account: a real signature), and a
// helper that signs a new context in through the e-mailed code (read from the SMTP sink) and hands
// back the page, its session token (to check results through the Account API) and an API caller.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hexToString, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { codeOf, type Mail } from './account.js';
import { watchedPage, type Watched, gotoSettled } from './browser.js';
import type { UiFixture } from './ui.js';

/** window.ethereum in `page`, answering eth_requestAccounts and personal_sign (signed in Node by `wallet`). */
export async function injectWallet(page: Page, wallet: PrivateKeyAccount): Promise<{ signed: string[] }> {
  const signed: string[] = [];
  await page.exposeFunction('__walletSign', async (hex: string) => {
    const message = hexToString(hex as Hex);
    signed.push(message);
    return wallet.signMessage({ message });
  });
  await page.addInitScript((address: string) => {
    (window as unknown as { ethereum: unknown }).ethereum = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address.toLowerCase()];
        if (method === 'personal_sign') return (window as unknown as { __walletSign(h: string): Promise<string> }).__walletSign(params![0] as string);
        throw new Error(`unsupported method ${method}`);
      },
    };
  }, wallet.address);
  return { signed };
}

/** What a wallet answers a request: its result, or an EIP-1193 error. */
export type WalletAnswer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/**
 * window.ethereum in every page of `ctx`, each request answered in Node by `answer` (a test
 * forwards to anvil, refuses on purpose, or plays another chain).
 */
export async function nodeWallet(ctx: BrowserContext, answer: (method: string, params: unknown[]) => Promise<WalletAnswer>): Promise<void> {
  await ctx.exposeFunction('__walletRpc', async (method: string, params: unknown[]) => JSON.stringify(await answer(method, params)));
  await ctx.addInitScript(() => {
    const call = (window as unknown as { __walletRpc(m: string, p: unknown[]): Promise<string> }).__walletRpc;
    (window as unknown as { ethereum: unknown }).ethereum = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        const r = JSON.parse(await call(method, params ?? []));
        if (r.error) throw Object.assign(new Error(r.error.message), { code: r.error.code, data: r.error.data });
        return r.result;
      },
    };
  });
}

/** A JSON-RPC call to the node as a wallet passes it on: its result or its error. */
export async function forwardToNode(node: string, method: string, params: unknown[]): Promise<WalletAnswer> {
  const res = await fetch(node, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as WalletAnswer;
  return body.error ? { error: body.error } : { result: body.result };
}

export interface SignedIn extends Watched {
  context: BrowserContext;
  /** The session token in the cookie (the Account API's Bearer token). */
  token: string;
  /** A request to the API as this account (status and parsed JSON body). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** A new browser context signed in as `email` through the e-mailed code. */
export async function signedInContext(
  browser: Browser,
  f: UiFixture,
  smtp: { next(): Promise<Mail> },
  email: string,
  viewport = { width: 1366, height: 900 },
): Promise<SignedIn> {
  // bypassCSP: the tests inject axe-core as a script (the UI's CSP allows scripts from 'self' only).
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const w = await watchedPage(context);
  await gotoSettled(w.page, `${f.base}/account/sign-in`);
  await w.page.fill('#email', email);
  await Promise.all([w.page.waitForURL(/\/account\/sign-in\/code\?/), w.page.click('form[action="/account/sign-in/email"] button')]);
  const mail = await smtp.next();
  await w.page.fill('#code', codeOf(mail));
  await Promise.all([w.page.waitForURL(`${f.base}/account`), w.page.click('form[action="/account/sign-in/email/verify"] button')]);
  const token = (await context.cookies()).find((c) => c.name === 'explorer_session')!.value;
  return { ...w, context, token, api: (method, path, body) => apiAs(f, token, method, path, body) };
}

/** `method path` on the API server (gateway: Account API and personalised public API) as the session `token`. */
export async function apiAs(f: UiFixture, token: string | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const q = path.indexOf('?');
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await f.server!.handle({
    method,
    path: q < 0 ? path : path.slice(0, q),
    query: new URLSearchParams(q < 0 ? '' : path.slice(q + 1)),
    headers,
    ip: '127.0.0.1',
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
  });
  const text = typeof r.body === 'string' ? r.body : r.body.toString('utf8');
  return { status: r.status, body: text ? JSON.parse(text) : null };
}
