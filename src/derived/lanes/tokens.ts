// The tokens lane: name, symbol, decimals, total supply and type (ERC-165) of each new token by
// eth_call (src/derived/token-metadata.ts, tolerant of bytes32 names, reverts and garbage).
import * as lanes from '../../storage/postgres/lanes.js';
import { fetchTokenMetadata } from '../token-metadata.js';
import type { LaneFactory } from '../lane.js';

export const tokensLane: LaneFactory = (env) => ({
  name: 'tokens',
  due: () => lanes.dueTokenMetadata(env.pg),

  async run() {
    const due = await lanes.claimTokensForMetadata(env.pg, 16);
    await Promise.all(
      due.map(async (t) => {
        try {
          const m = await fetchTokenMetadata(env.rpc, t.address, { shapeType: t.type as 'ERC-20' });
          await lanes.saveTokenMetadata(env.pg, t.address, m);
        } catch (e) {
          await lanes.failTokenMetadata(env.pg, t.address, t.attempts, (e as Error).message);
        }
      }),
    );
    return due.length;
  },
});
