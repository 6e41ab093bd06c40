// The code lane: eth_getCode of contracts created in the indexed range (empty code: nothing is
// deployed there, e.g. a constructor that self-destructed).
import * as lanes from '../../storage/postgres/lanes.js';
import type { LaneFactory } from '../lane.js';

export const codeLane: LaneFactory = (env) => ({
  name: 'code',
  due: () => lanes.dueContractCode(env.pg),

  async run() {
    const due = await lanes.claimContractsForCode(env.pg, 50);
    if (!due.length) return 0;
    const outcomes = await env.rpc.batch<string>(due.map((d) => ({ method: 'eth_getCode', params: [d.address, 'latest'] })));
    for (let i = 0; i < due.length; i++) {
      const o = outcomes[i];
      await lanes.saveContractCode(env.pg, due[i].address, o.ok ? String(o.result).toLowerCase() : null, due[i].attempts);
    }
    return due.length;
  },
});
