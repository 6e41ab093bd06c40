// Which chain family the node serves (README.md, "OP Stack"): set by CHAIN_FAMILY, or found
// from the node when it is `auto`: OP Stack when the L1Block predeploy has code or the node
// answers the optimism_ namespace (rpc_modules), and from the chain itself when a deposit
// transaction (type 0x7e) is indexed (anvil's OP mode has neither predeploy nor namespace). Kept
// as the indexer fact `chain_family`, which the API reads; nothing changes on other chains.
import type { RpcClient } from '../rpc/client.js';
import type { PgStore } from '../storage/postgres/store.js';
import { getFact, setFact } from '../storage/postgres/indexer.js';
import { CHAIN_FAMILY_FACT, L1_BLOCK_PREDEPLOY, type ChainFamily, type ChainFamilyFact, type ChainFamilySetting } from '../chain/op-stack.js';

/**
 * What the node says of itself, or null: the L1Block predeploy's code (op-geth, op-reth, EDR), an
 * `optimism` module in rpc_modules, or an answer to optimism_syncStatus (op-node's namespace). A
 * method the node refuses or fails says nothing.
 */
export async function opStackFromNode(rpc: Pick<RpcClient, 'request'>): Promise<string | null> {
  const code = await rpc.request<string>('eth_getCode', [L1_BLOCK_PREDEPLOY, 'latest']).catch(() => '0x');
  if (code && code !== '0x') return 'L1Block predeploy';
  const modules = await rpc.request<Record<string, string> | null>('rpc_modules', []).catch(() => null);
  if (modules && typeof modules === 'object' && 'optimism' in modules) return 'optimism_ namespace';
  const sync = await rpc.request<unknown>('optimism_syncStatus', []).catch(() => null);
  if (sync && typeof sync === 'object') return 'optimism_ namespace';
  return null;
}

/** The family at the indexer's start, stored: the setting, else the node's word, else what was found before (a deposit). */
export async function detectChainFamily(pg: PgStore, rpc: RpcClient, setting: ChainFamilySetting): Promise<ChainFamilyFact> {
  let fact: ChainFamilyFact;
  if (setting !== 'auto') fact = { family: setting, source: 'CHAIN_FAMILY' };
  else {
    const source = await opStackFromNode(rpc);
    const before = await getFact<ChainFamilyFact>(pg, CHAIN_FAMILY_FACT);
    if (source) fact = { family: 'optimism', source };
    else if (before?.family === 'optimism' && before.source === 'deposit transaction') fact = before;
    else fact = { family: 'ethereum', source: 'node' };
  }
  await setFact(pg, CHAIN_FAMILY_FACT, fact);
  return fact;
}

/** After a committed range with `deposits` deposit transactions: OP Stack from now on, when the family was found, not set. */
export async function sawDeposits(pg: PgStore, current: ChainFamilyFact, setting: ChainFamilySetting): Promise<ChainFamilyFact> {
  if (setting !== 'auto' || current.family === 'optimism') return current;
  const fact: ChainFamilyFact = { family: 'optimism' as ChainFamily, source: 'deposit transaction' };
  await setFact(pg, CHAIN_FAMILY_FACT, fact);
  return fact;
}
