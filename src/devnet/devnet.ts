// The devnet harness: a local anvil node, our own test contracts, a deterministic scenario of
// chain activity and a small demo workload. Used by the tests and by `explorer start` when no RPC
// URL is configured.
export { startAnvil, anvilBinary, DEFAULT_CHAIN_ID, type AnvilInstance, type StartAnvilOptions } from './anvil.js';
export {
  compileContracts,
  contractsDir,
  devnetStandardInput,
  projectRoot,
  SOLC_SETTINGS,
  type CompiledContract,
  type CompiledContracts,
} from './compile.js';
export {
  runScenario,
  devAccount,
  DEVNET_MNEMONIC,
  FRESH_EOA,
  INTERNAL_RECIPIENT,
  NFT_BASE_URI,
  MULTI_URI,
  CREATE2_SALT,
  TOPIC_TRANSFER,
  TOPIC_TRANSFER_SINGLE,
  TOPIC_TRANSFER_BATCH,
  type ContractName,
  type ScenarioCounts,
  type ScenarioResult,
  type ScenarioTx,
} from './scenario.js';
export { startDemoWorkload, type DemoWorkload, type DemoWorkloadOptions } from './demo.js';

import { startAnvil, type AnvilInstance, type StartAnvilOptions } from './anvil.js';
import { runScenario, type ScenarioResult } from './scenario.js';

export interface Devnet {
  url: string;
  anvil: AnvilInstance;
  scenario: ScenarioResult;
  stop(): Promise<void>;
}

/** Start anvil and run the scenario on it; stops anvil if the scenario fails. */
export async function startDevnet(opts: StartAnvilOptions = {}): Promise<Devnet> {
  const anvil = await startAnvil(opts);
  try {
    const scenario = await runScenario(anvil.url);
    return { url: anvil.url, anvil, scenario, stop: () => anvil.stop() };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
