// The nft lane: tokenURI/uri metadata of NFT instances (src/derived/nft-metadata.ts: data:,
// http(s) through the outbound guard, ipfs:// through IPFS_GATEWAY). A failure is recorded and
// retried with backoff up to nftMaxAttempts, never an error page; its detail goes to the debug log.
import * as lanes from '../../storage/postgres/lanes.js';
import { fetchNftMetadata } from '../nft-metadata.js';
import type { LaneFactory } from '../lane.js';

export const nftLane: LaneFactory = (env) => ({
  name: 'nft',
  due: () => lanes.dueNftMetadata(env.pg),

  async run() {
    const due = await lanes.claimNftsForMetadata(env.pg, 8);
    await Promise.all(
      due.map(async (n) => {
        try {
          const r = await fetchNftMetadata(env.rpc, { address: n.token, type: n.type as 'ERC-721' }, n.token_id, {
            ipfsGateway: env.ipfsGateway,
            timeoutMs: env.nftTimeoutMs,
            allowPrivate: env.allowPrivateMetadataHosts,
          });
          if (r.detail) env.log.debug('NFT metadata not fetched', { token: n.token, token_id: n.token_id, error: r.error, detail: r.detail });
          await lanes.saveNftMetadata(env.pg, n.token, n.token_id, r, n.attempts, env.nftMaxAttempts);
        } catch (e) {
          const error = (e as Error).message;
          await lanes.saveNftMetadata(env.pg, n.token, n.token_id, { tokenUri: null, metadata: null, image: null, error, retryable: true }, n.attempts, env.nftMaxAttempts);
        }
      }),
    );
    return due.length;
  },
});
