// Test helpers for the anvil devnet. Everything from src/devnet, plus withDevnet(t), which starts
// anvil, runs the scenario once and registers the teardown on the given tap test.
export * from '../../src/devnet/devnet.js';
import { startAnvil, startDevnet, type AnvilInstance, type Devnet, type StartAnvilOptions } from '../../src/devnet/devnet.js';

/** The part of a tap Test these helpers need. */
export interface Teardownable {
  teardown(fn: () => unknown): void;
}

/**
 * Start anvil + run the scenario; anvil is stopped when `t` ends (also when it fails).
 * With `fn`, run it with the devnet and return its result.
 */
export async function withDevnet(t: Teardownable, opts?: StartAnvilOptions): Promise<Devnet>;
export async function withDevnet<T>(t: Teardownable, fn: (devnet: Devnet) => Promise<T> | T, opts?: StartAnvilOptions): Promise<T>;
export async function withDevnet<T>(
  t: Teardownable,
  fnOrOpts?: ((devnet: Devnet) => Promise<T> | T) | StartAnvilOptions,
  maybeOpts?: StartAnvilOptions,
): Promise<Devnet | T> {
  const fn = typeof fnOrOpts === 'function' ? fnOrOpts : undefined;
  const opts = typeof fnOrOpts === 'function' ? maybeOpts : fnOrOpts;
  const devnet = await startDevnet(opts);
  t.teardown(() => devnet.stop());
  return fn ? fn(devnet) : devnet;
}

/** A bare anvil (no scenario), stopped when `t` ends. */
export async function withAnvil(t: Teardownable, opts?: StartAnvilOptions): Promise<AnvilInstance> {
  const anvil = await startAnvil(opts);
  t.teardown(() => anvil.stop());
  return anvil;
}
