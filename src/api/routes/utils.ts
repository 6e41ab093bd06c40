// /utils/decode-calldata (Blockscout's UtilsController): any calldata named and decoded as a
// transaction's input is (src/abi/naming.ts: the verified ABI of `address_hash` when given, else
// the standard interfaces, the catalogue and the instance's names), answered as
// `{"result": decoded_input or null}`. The web UI's call tree decodes inner calls with it: the
// raw trace carries each frame's input, and only the API knows the names.
import { nameCall } from '../../abi/naming.js';
import { ApiError } from '../errors.js';
import type { RouteDef } from '../router.js';

/** Blockscout's answer to calldata or an address that does not cast ({:format, :error}). */
const INVALID_BODY = { message: 'Invalid parameter(s)' } as const;
const CALLDATA = /^0x(?:[0-9a-fA-F]{2})*$/;

export const utilsRoutes: RouteDef[] = [
  {
    pattern: '/utils/decode-calldata',
    // The address is checked here, not by the parameter cast: Blockscout answers both malformed
    // values with the same body.
    query: { calldata: { kind: 'string' }, address_hash: { kind: 'string' } },
    async handler({ query, ctx }) {
      const calldata = typeof query.calldata === 'string' ? query.calldata : '';
      const address = typeof query.address_hash === 'string' ? query.address_hash : null;
      if (!CALLDATA.test(calldata) || (address !== null && !/^0x[0-9a-fA-F]{40}$/.test(address))) throw new ApiError(422, INVALID_BODY);
      if (calldata.length < 10) return { body: { result: null }, policy: 'volatile' };
      const to = address?.toLowerCase() ?? null;
      const [facts] = await Promise.all([to ? ctx.addressFacts([to]) : Promise.resolve(null), ctx.signatures.prefetch([calldata.slice(0, 10).toLowerCase()])]);
      const named = nameCall(calldata, to ? facts?.get(to)?.abi : null, ctx.signatures);
      // A verification or a name learnt later changes the answer: kept no longer than a block.
      return { body: { result: named?.decoded ?? null }, policy: 'volatile' };
    },
  },
];
