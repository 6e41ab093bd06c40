// module=contract, action getcontractcreation of the Etherscan-compatible API: who created each
// contract, in which transaction and with what init code (Blockscout's ContractController and
// ContractView.prepare_contract_creation_info). Verification actions live elsewhere.
import type { ApiContext } from '../context.js';
import { contractsByAddress } from '../../storage/postgres/reads/addresses.js';
import { creatingFrame, etherscanTransaction } from '../../storage/clickhouse/reads/etherscan.js';
import { withPointInputs } from '../../storage/postgres/points.js';
import { parseAddress, type Params } from './params.js';
import { fail, ok, type ActionReply, type ActionTable } from './actions.js';

/** Blockscout answers for the first 10 addresses of the list. */
export const CREATION_ADDRESSES_MAX = 10;

const REQUIRED = 'Query parameter contractaddresses is required';

/**
 * Each listed contract the derived lanes recorded as created in the indexed range: its creator
 * (the transaction's sender), the transaction, block and time, the factory contract when it was
 * created by a CREATE/CREATE2 below the top level ("" for a direct deployment) and the init code.
 * Malformed, unknown and non-contract addresses are left out, as Blockscout leaves them out.
 */
async function getcontractcreation(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const raw = p.get('contractaddresses');
  if (raw === undefined) return fail(REQUIRED, REQUIRED);
  const addresses = [...new Set(raw.split(',').slice(0, CREATION_ADDRESSES_MAX).map((a) => parseAddress(a.trim())).filter((a): a is string => a !== null))];
  const contracts = await contractsByAddress(ctx.pg, addresses);
  const items = await Promise.all(
    addresses.map(async (address) => {
      const c = contracts.get(address);
      if (!c) return null;
      const read = await etherscanTransaction(ctx.ch, c.creation_tx);
      const [tx] = read ? await withPointInputs(ctx.pg, [read], (x) => x.hash) : [];
      if (!tx) return null;
      const frame = tx.created_contract === address ? null : await creatingFrame(ctx.ch, BigInt(tx.block_number), tx.transaction_index, address);
      if (tx.created_contract !== address && !frame) return null;
      return {
        contractAddress: address,
        contractCreator: tx.from,
        txHash: tx.hash,
        blockNumber: tx.block_number,
        timestamp: String(tx.ts),
        contractFactory: frame ? frame.from : '',
        creationBytecode: frame ? frame.input : tx.input,
      };
    }),
  );
  // A contract created by a later block would change the answer.
  return ok(items.filter((i) => i !== null), 'volatile');
}

export const contractCreationActions: ActionTable = { getcontractcreation };
