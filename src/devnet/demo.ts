// Keeps a devnet alive after the scenario: every intervalMs, one native transfer and one ERC-20
// transfer among anvil's dev accounts. Errors are logged, never thrown.
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  http,
  parseEther,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type HDAccount,
  type PublicClient,
} from 'viem';
import { compileContracts } from './compile.js';
import { devAccount } from './scenario.js';

export interface DemoWorkloadOptions {
  /** Pause between rounds (measured from the end of one round to the start of the next); default 2000 ms. */
  intervalMs?: number;
  /** ERC-20 to move (must be a DevnetToken owned by dev account #0, e.g. scenario.contracts.DevnetToken).
   * Default: the scenario's DevnetToken when it is on the chain (it always lands at the same
   * address: dev account #0, nonce 0), otherwise a DevnetToken deployed in the first round. */
  token?: Address;
  /** Where errors (and the one-line start notice) go; default console.error. Repeats of the same
   * error are reported once. */
  log?: (message: string) => void;
}

export interface DemoWorkload {
  /** Stop after the round in flight (if any) finishes; resolves when nothing is pending. */
  stop(): Promise<void>;
  /** Rounds completed (successfully or not). */
  readonly rounds: number;
  /** Transactions mined successfully so far. */
  readonly sent: number;
}

const RECEIPT_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function startDemoWorkload(rpcUrl: string, opts: DemoWorkloadOptions = {}): DemoWorkload {
  const intervalMs = opts.intervalMs ?? 2000;
  const log = opts.log ?? ((m: string) => console.error(m));
  // Accounts #1..#9 take turns; #0 owns the token and tops up balances by minting.
  const owner = devAccount(0);
  const ring = Array.from({ length: 9 }, (_, i) => devAccount(i + 1));

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let rounds = 0;
  let sent = 0;
  let lastError = '';

  let clients: { client: PublicClient; chain: ReturnType<typeof defineChain> } | undefined;
  let token: Address | undefined = opts.token;
  let tokenAbi: Awaited<ReturnType<typeof compileContracts>>[string]['abi'] | undefined;

  async function setup() {
    if (!clients) {
      const probe = createPublicClient({ transport: http(rpcUrl) });
      const chainId = await probe.getChainId();
      const chain = defineChain({
        id: chainId,
        name: 'devnet',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
      });
      clients = { client: createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient, chain };
    }
    if (!tokenAbi) tokenAbi = (await compileContracts()).DevnetToken.abi;
    return clients;
  }

  async function findScenarioToken(client: PublicClient): Promise<Address | undefined> {
    const address = getContractAddress({ from: owner.address, nonce: 0n });
    const code = await client.getCode({ address });
    if (!code || code === '0x') return undefined;
    try {
      const [tokenOwner, symbol] = await Promise.all([
        client.readContract({ address, abi: tokenAbi!, functionName: 'owner' }),
        client.readContract({ address, abi: tokenAbi!, functionName: 'symbol' }),
      ]);
      return tokenOwner === owner.address && symbol === 'DVT' ? address : undefined;
    } catch {
      return undefined;
    }
  }

  async function waitMined(client: PublicClient, hash: Hex) {
    const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const receipt = await client.getTransactionReceipt({ hash }).catch((err: unknown) => {
        if (err instanceof TransactionReceiptNotFoundError) return undefined; // not mined yet
        throw err; // e.g. the node went away
      });
      if (receipt) {
        if (receipt.status !== 'success') throw new Error(`demo tx ${hash} reverted`);
        sent++;
        return receipt;
      }
      if (stopped) return undefined; // do not hold up stop() for a slow block
      await sleep(100);
    }
    throw new Error(`demo tx ${hash} not mined within ${RECEIPT_TIMEOUT_MS} ms`);
  }

  async function send(from: HDAccount, req: { to?: Address; data?: Hex; value?: bigint }) {
    const { client, chain } = await setup();
    const wallet = createWalletClient({ account: from, chain, transport: http(rpcUrl) });
    const hash = await wallet.sendTransaction({ account: from, chain, to: req.to, data: req.data, value: req.value });
    return waitMined(client, hash);
  }

  async function round(i: number) {
    const { client } = await setup();
    const from = ring[i % ring.length];
    const to = ring[(i + 1) % ring.length];
    await send(from, { to: to.address, value: parseEther('0.001') * BigInt((i % 5) + 1) });

    if (!token) token = await findScenarioToken(client);
    if (!token) {
      const a = (await compileContracts()).DevnetToken;
      const receipt = await send(owner, {
        data: encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args: ['Demo Token', 'DEMO'] }),
      });
      if (!receipt?.contractAddress) return;
      token = receipt.contractAddress;
    }
    const amount = parseEther(String((i % 7) + 1));
    const balance = (await client.readContract({
      address: token,
      abi: tokenAbi!,
      functionName: 'balanceOf',
      args: [from.address],
    })) as bigint;
    if (balance < amount) {
      await send(owner, {
        to: token,
        data: encodeFunctionData({ abi: tokenAbi!, functionName: 'mint', args: [from.address, parseEther('1000')] }),
      });
    }
    if (stopped) return;
    await send(from, {
      to: token,
      data: encodeFunctionData({ abi: tokenAbi!, functionName: 'transfer', args: [to.address, amount] }),
    });
  }

  function schedule(delay: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      const i = rounds;
      inFlight = round(i)
        .then(() => {
          lastError = '';
        })
        .catch((err: unknown) => {
          const msg = `demo workload: round ${i} failed: ${(err as Error)?.message?.split('\n')[0] ?? String(err)}`;
          if (msg.replace(/round \d+/, '') !== lastError) log(msg);
          lastError = msg.replace(/round \d+/, '');
        })
        .finally(() => {
          rounds++;
          inFlight = undefined;
          schedule(intervalMs);
        });
    }, delay);
  }

  schedule(0);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      while (inFlight) await inFlight;
    },
    get rounds() {
      return rounds;
    },
    get sent() {
      return sent;
    },
  };
}
