// ERC-4337 handleAggregatedOps end to end on anvil: the real EntryPoint v0.7 and v0.8 and the real
// BLS signature aggregator and BLS account samples of @account-abstraction/contracts v0.7 (BLS
// signatures on bn254 made with @noble/curves; test/helpers/aggregated-user-operations.ts). One
// bundle per version: two BLS operations under the aggregator (one deploying its account), then a
// SimpleAccount operation in a group under no aggregator. Indexed, then every field of each
// operation's answer is checked against what the EntryPoint emitted (UserOperationEvent,
// AccountDeployed, Deposited and SignatureAggregatorChanged, decoded here with viem and the npm
// artifacts' ABI), against getUserOpHash and against the bundle as sent.
import t from 'tap';
import { EventEmitter } from 'node:events';
import { decodeEventLog, getAddress, pad, numberToHex, type Hex, type Log } from 'viem';
import { withAnvil } from './helpers/devnet.js';
import { rpc } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';
import { artifact } from './helpers/user-operations.js';
import { sendAggregatedOperations } from './helpers/aggregated-user-operations.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';

const BUNDLER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const ZERO = `0x${'0'.repeat(40)}`;
const iso = (sec: number) => new Date(sec * 1000).toISOString().replace('.000Z', '.000000Z');
const hi = (w: Hex) => (BigInt(w) >> 128n).toString();
const lo = (w: Hex) => (BigInt(w) & ((1n << 128n) - 1n)).toString();

interface RpcReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  from: string;
  status: string;
  logs: (Log & { logIndex: string })[];
}

t.test('handleAggregatedOps of EntryPoint v0.7 and v0.8 with the BLS aggregator: every field as emitted', { timeout: 600_000 }, async (t) => {
  const anvil = await withAnvil(t);
  const scenario = await sendAggregatedOperations(anvil.url, BUNDLER);
  const stores = await embeddedStores(t);
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: anvil.url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false });
  await indexer.start();
  t.teardown(() => indexer.stop());
  await indexer.waitFor(Number(await rpc<string>(anvil.url, 'eth_blockNumber')), 120_000);

  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 0 });
  app.attach(new EventEmitter());
  const get = async (p: string) => {
    const r = await app.handle(request(p));
    return { status: r.status, body: JSON.parse(typeof r.body === 'string' ? r.body : r.body.toString('utf8')) };
  };
  const doc = loadOpenApi();
  const AA = '/api/v2/proxy/account-abstraction';

  t.equal(scenario.ops.length, 6, 'three operations per version sent');
  for (const setup of scenario.setups) {
    const abi = artifact(setup.version, 'EntryPoint').abi;
    const receipt = await rpc<RpcReceipt>(anvil.url, 'eth_getTransactionReceipt', [setup.transactionHash]);
    t.equal(receipt.status, '0x1', `${setup.version}: the bundle succeeded`);
    const block = await rpc<{ timestamp: string }>(anvil.url, 'eth_getBlockByHash', [receipt.blockHash, false]);
    // The EntryPoint's logs in order, each with the aggregator in force (SignatureAggregatorChanged opens each group).
    let current: string | null = null;
    const events: { name: string; args: Record<string, unknown>; aggregator: string | null }[] = [];
    for (const l of receipt.logs) {
      if (l.address.toLowerCase() !== setup.entryPoint) continue;
      const ev = decodeEventLog({ abi, topics: l.topics as [Hex], data: l.data }) as unknown as { eventName: string; args: Record<string, unknown> };
      if (ev.eventName === 'SignatureAggregatorChanged') current = (ev.args.aggregator as string).toLowerCase();
      events.push({ name: ev.eventName, args: ev.args, aggregator: current });
    }
    t.same(
      events.filter((e) => e.name === 'SignatureAggregatorChanged').map((e) => e.aggregator),
      // v0.7 also switches back to none after the last group; v0.8 does not.
      setup.version === 'v0.7' ? [setup.aggregator, ZERO, ZERO] : [setup.aggregator, ZERO],
      `${setup.version}: the EntryPoint switched to the BLS aggregator, then to none for the second group`,
    );
    const deposits = events.filter((e) => e.name === 'Deposited').map((e) => (e.args.account as string).toLowerCase());

    const ops = scenario.ops.filter((o) => o.version === setup.version);
    t.equal(ops[0]!.aggregatorSignature, setup.jsAggregate, `${setup.version}: the aggregator's aggregateSignatures is the sum of the BLS signatures made here`);
    for (const sent of ops) {
      const what = `${sent.version} ${sent.kind}`;
      const opEvent = events.find((e) => e.name === 'UserOperationEvent' && (e.args.userOpHash as string).toLowerCase() === sent.hash);
      t.ok(opEvent, `${what}: the EntryPoint emitted its UserOperationEvent under getUserOpHash's hash`);
      if (!opEvent) continue;
      const a = opEvent.args as { success: boolean; actualGasCost: bigint; actualGasUsed: bigint; nonce: bigint; sender: string; paymaster: string };
      const deployed = events.find((e) => e.name === 'AccountDeployed' && (e.args.userOpHash as string).toLowerCase() === sent.hash);
      const o = sent.op as Record<string, Hex | bigint>;
      const res = await get(`${AA}/operations/${sent.hash}`);
      t.equal(res.status, 200, `${what}: answered`);
      const op = res.body;
      if (doc) t.same(validate(doc, responseSchema(doc, '/v2/proxy/account-abstraction/operations/{operation_hash_param}'), op), [], `${what}: passes its schema`);
      t.same(
        {
          hash: op.hash,
          sender: op.sender.hash,
          nonce: op.nonce,
          call_data: op.call_data,
          call_gas_limit: op.call_gas_limit,
          verification_gas_limit: op.verification_gas_limit,
          pre_verification_gas: op.pre_verification_gas,
          max_fee_per_gas: op.max_fee_per_gas,
          max_priority_fee_per_gas: op.max_priority_fee_per_gas,
          signature: op.signature,
          aggregator: op.aggregator,
          aggregator_signature: op.aggregator_signature,
          entry_point: op.entry_point.hash,
          entry_point_version: op.entry_point_version,
          transaction_hash: op.transaction_hash,
          block_number: op.block_number,
          block_hash: op.block_hash,
          bundler: op.bundler.hash,
          bundle_index: op.bundle_index,
          index: op.index,
          factory: op.factory?.hash ?? null,
          paymaster: op.paymaster,
          status: op.status,
          revert_reason: op.revert_reason,
          gas: op.gas,
          gas_price: op.gas_price,
          gas_used: op.gas_used,
          fee: op.fee,
          sponsor_type: op.sponsor_type,
          timestamp: op.timestamp,
          raw: op.raw,
        },
        {
          hash: sent.hash,
          sender: getAddress(a.sender),
          nonce: pad(numberToHex(a.nonce), { size: 32 }),
          call_data: o.callData,
          call_gas_limit: lo(o.accountGasLimits as Hex),
          verification_gas_limit: hi(o.accountGasLimits as Hex),
          pre_verification_gas: String(o.preVerificationGas),
          max_fee_per_gas: lo(o.gasFees as Hex),
          max_priority_fee_per_gas: hi(o.gasFees as Hex),
          signature: (o.signature as string).toLowerCase(),
          // The aggregator the EntryPoint had switched to when it emitted the operation's event; none under address 0.
          aggregator: opEvent.aggregator && BigInt(opEvent.aggregator) !== 0n ? getAddress(opEvent.aggregator) : null,
          aggregator_signature: sent.aggregator ? setup.jsAggregate : null,
          entry_point: getAddress(setup.entryPoint),
          entry_point_version: sent.version,
          transaction_hash: setup.transactionHash,
          block_number: String(Number(receipt.blockNumber)),
          block_hash: receipt.blockHash,
          bundler: getAddress(receipt.from),
          bundle_index: 0,
          index: sent.index,
          factory: deployed ? getAddress(deployed.args.factory as string) : null,
          paymaster: BigInt(a.paymaster) === 0n ? null : getAddress(a.paymaster),
          status: a.success,
          revert_reason: null,
          gas: (BigInt(lo(o.accountGasLimits as Hex)) + BigInt(hi(o.accountGasLimits as Hex)) + (o.preVerificationGas as bigint)).toString(),
          gas_price: (a.actualGasCost / a.actualGasUsed).toString(),
          gas_used: a.actualGasUsed.toString(),
          fee: a.actualGasCost.toString(),
          sponsor_type: deposits.includes(sent.sender) ? 'wallet_deposit' : 'wallet_balance',
          timestamp: iso(Number(block.timestamp)),
          raw: { sender: getAddress(sent.sender), nonce: String(o.nonce), init_code: o.initCode, call_data: o.callData, account_gas_limits: o.accountGasLimits, pre_verification_gas: String(o.preVerificationGas), gas_fees: o.gasFees, paymaster_and_data: o.paymasterAndData, signature: (o.signature as string).toLowerCase() },
        },
        `${what}: every field as the EntryPoint emitted it and as it was sent`,
      );
      // What each operation is about, stated outright (the comparison above takes the events' word).
      t.equal(op.aggregator, sent.aggregator ? getAddress(setup.aggregator) : null, `${what}: its group's aggregator`);
      t.equal(op.factory?.hash ?? null, sent.kind === 'bls-deploy' ? getAddress(setup.blsFactory) : sent.kind === 'plain' ? getAddress(setup.simpleFactory) : null, `${what}: the factory of a deploying operation`);
      t.equal(op.status, true, `${what}: succeeded`);
      t.not(op.bundler.hash.toLowerCase(), scenario.beneficiary, `${what}: the bundler is the sender, not the beneficiary`);
    }
    // The bundle, its operations and the accounts.
    t.same((await get(`${AA}/operations?transaction_hash=${setup.transactionHash}`)).body.items.map((i: { hash: string }) => i.hash).sort(), ops.map((o) => o.hash).sort(), `${setup.version}: the bundle's operations`);
    const bundle = (await get(`${AA}/bundles?entry_point=${setup.entryPoint}`)).body.items;
    t.same(bundle.map((b: { transaction_hash: string; total_ops: number }) => [b.transaction_hash, b.total_ops]), [[setup.transactionHash, 3]], `${setup.version}: one bundle of three`);
    const acct = (await get(`${AA}/accounts/${ops[0]!.sender}`)).body;
    t.same([acct.factory?.hash, acct.creation_op_hash, acct.total_ops], [getAddress(setup.blsFactory), ops[0]!.hash, 1], `${setup.version}: the BLS account deployed by its operation`);
  }
  const found = await get(`/api/v2/search?q=${scenario.ops[1]!.hash}`);
  t.same(found.body.items.filter((i: { type: string }) => i.type === 'user_operation').map((i: { user_operation_hash: string }) => i.user_operation_hash), [scenario.ops[1]!.hash], 'search finds an aggregated operation');
});
