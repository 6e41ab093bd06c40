// A bare JSON-RPC call for tests that check the node's own answers.
export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * The block number a sent transaction was mined in, waiting for its receipt: anvil may answer
 * eth_sendTransaction before the block exists, so eth_blockNumber right after it can still be
 * the old head.
 */
export async function minedIn(url: string, hash: string, timeoutMs = 10_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await rpc<{ blockNumber: string } | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (r?.blockNumber) return Number(r.blockNumber);
    if (Date.now() > until) throw new Error(`transaction ${hash} not mined within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

/**
 * eth_sendTransaction, then waits until it is mined: a snapshot or revert right after a bare send
 * can land before the block, so the branch the test means is one block short (a CI run
 * snapshotted at block 2 instead of 3, and waited for a height the node never reached).
 */
export async function sendMined(url: string, tx: Record<string, unknown>): Promise<string> {
  const hash = await rpc<string>(url, 'eth_sendTransaction', [tx]);
  await minedIn(url, hash);
  return hash;
}
