// The hand-written EntryPoint ABI items (src/chain/entry-point-abi.ts) against the EntryPoint
// artifacts of @account-abstraction/contracts 0.6.0, 0.7.0 and 0.8.0: every handler and event the
// indexer decodes with must be, parameter for parameter (types, names, indexed flags), the one the
// real contract declares, and the selectors must tell v0.6 from the packed versions.
import t from 'tap';
import { createRequire } from 'node:module';
import { formatAbiItem } from 'viem/utils';
import { toEventSelector, toFunctionSelector, type Abi, type AbiEvent, type AbiFunction } from 'viem';
import { ENTRY_POINT_EVENTS, HANDLER_SELECTORS, PACKED_HANDLERS, TOPIC, V06_HANDLERS } from '../../../src/chain/entry-point-abi.js';

const require = createRequire(import.meta.url);
const artifact = (pkg: string): Abi => (require(`${pkg}/artifacts/EntryPoint.json`) as { abi: Abi }).abi;
const packages = {
  'v0.6': '@account-abstraction/contracts-v0.6',
  'v0.7': '@account-abstraction/contracts-v0.7',
  'v0.8': '@account-abstraction/contracts',
} as const;

/** An ABI item's full text: signature with parameter names and indexed flags, tuples expanded. */
const text = (item: AbiFunction | AbiEvent): string => {
  const params = (ps: readonly { type: string; name?: string; indexed?: boolean; components?: readonly unknown[] }[]): string =>
    ps.map((p) => `${p.components ? `(${params(p.components as never)})${p.type.slice(5)}` : p.type}${p.indexed ? ' indexed' : ''} ${p.name ?? ''}`).join(',');
  return `${item.type} ${item.name}(${params(item.inputs as never)})`;
};

for (const [version, pkg] of Object.entries(packages)) {
  t.test(`${version}: ${pkg}`, async (t) => {
    const abi = artifact(pkg);
    const ours = version === 'v0.6' ? V06_HANDLERS : PACKED_HANDLERS;
    for (const name of ['handleOps', 'handleAggregatedOps']) {
      const theirs = abi.find((i) => i.type === 'function' && i.name === name) as AbiFunction;
      const mine = ours.find((i) => i.type === 'function' && i.name === name) as AbiFunction;
      t.ok(theirs, `${name} in the artifact`);
      t.equal(text(mine), text(theirs), `${name} as declared`);
      t.equal(toFunctionSelector(mine), toFunctionSelector(theirs), `${name} selector ${formatAbiItem(theirs)}`);
      t.equal(HANDLER_SELECTORS.get(toFunctionSelector(theirs)), version === 'v0.6' ? 'v0.6' : 'packed', `${name} selector decodes with the ${version} ABI`);
    }
    for (const mine of ENTRY_POINT_EVENTS) {
      const theirs = abi.find((i) => i.type === 'event' && i.name === mine.name) as AbiEvent;
      t.ok(theirs, `${mine.name} in the artifact`);
      t.equal(text(mine), text(theirs), `${mine.name} as declared`);
    }
    t.equal(TOPIC.userOperationEvent, toEventSelector(abi.find((i) => i.type === 'event' && i.name === 'UserOperationEvent') as AbiEvent));
    t.equal(TOPIC.beforeExecution, toEventSelector(abi.find((i) => i.type === 'event' && i.name === 'BeforeExecution') as AbiEvent));
  });
}
