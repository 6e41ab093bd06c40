// The code lane: eth_getCode of contracts created in the indexed range (empty code: nothing is
// deployed there, e.g. a constructor that self-destructed).
import * as lanes from '../../storage/postgres/lanes.js';
import type { LaneEnv, LaneFactory } from '../lane.js';

/** The node refuses eth_getCode: the code not fetched stays unknown (null); the contracts stay queued for a node that answers. */
const refused = (env: LaneEnv) => env.history.refuses('eth_getCode');

export const codeLane: LaneFactory = (env) => ({
  name: 'code',
  due: async () => (refused(env) ? 0 : lanes.dueContractCode(env.pg)),

  async run() {
    if (refused(env)) return 0;
    const due = await lanes.claimContractsForCode(env.pg, 50);
    if (!due.length) return 0;
    const outcomes = await env.rpc.batch<string>(due.map((d) => ({ method: 'eth_getCode', params: [d.address, 'latest'] })));
    // Refused (said once by env.history): no attempt counted; the claim's lease runs out unasked.
    if (refused(env)) return 0;
    for (let i = 0; i < due.length; i++) {
      const o = outcomes[i];
      await lanes.saveContractCode(env.pg, due[i].address, o.ok ? String(o.result).toLowerCase() : null, due[i].attempts);
    }
    return due.length;
  },
});
