// The supply lane: totalSupply again for tokens whose supply a mint or burn changed.
import * as lanes from '../../storage/postgres/lanes.js';
import { fetchTotalSupply } from '../token-metadata.js';
import type { LaneFactory } from '../lane.js';

export const supplyLane: LaneFactory = (env) => ({
  name: 'supply',
  due: () => lanes.dueSupplies(env.pg),

  async run() {
    const due = await lanes.claimStaleSupplies(env.pg, 32);
    await Promise.all(
      due.map(async (a) => {
        try {
          await lanes.saveSupply(env.pg, a, await fetchTotalSupply(env.rpc, a), false);
        } catch {
          await lanes.saveSupply(env.pg, a, null, true);
        }
      }),
    );
    return due.length;
  },
});
