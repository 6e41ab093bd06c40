// /config/*: what Blockscout's frontend asks of the backend's configuration. backend-version (this
// project's name and version, shown in its footer), csv-export (the rows an export may hold),
// backend (chain variant), smart-contracts/languages (the verified list's language filter),
// indexer (which fetchers run, as far as the indexer has said so in its facts),
// db-background-migrations (the upgrade's fills not finished yet) and public-metrics (the
// refresh period of public chain metrics, which this explorer does not publish).
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../paths.js';
import type { RouteDef } from '../router.js';
import { getFactsWithTime } from '../../storage/postgres/indexer.js';
import { POINT_BACKFILL_FACT } from '../../storage/postgres/points.js';
import { USER_OPERATIONS_BACKFILL } from '../../storage/postgres/user-operations.js';
import { isoDate } from '../serializers/common.js';

let version: string | null | undefined;

/** "<name> v<version>" of the project's package.json, read once; null when it cannot be read. */
export function backendVersion(): string | null {
  if (version !== undefined) return version;
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
    version = typeof pkg.name === 'string' && typeof pkg.version === 'string' ? `${pkg.name} v${pkg.version}` : null;
  } catch {
    version = null;
  }
  return version;
}

/**
 * The rows a CSV export may hold: exports here have no row cap (src/api/routes/csv-export.ts,
 * where Blockscout stops at 10,000), so the largest integer a JSON client reads exactly. Not 0:
 * Blockscout's frontend reads a falsy limit as its own default of 10,000.
 */
export const CSV_EXPORT_ROWS = Number.MAX_SAFE_INTEGER;

/** The languages the verified-contracts list filters by (its `filter`, Blockscout's Language enum). */
export const CONTRACT_LANGUAGES = ['solidity', 'vyper', 'yul', 'geas'] as const;

export const configRoutes: RouteDef[] = [
  {
    pattern: '/config/backend-version',
    async handler() {
      // Changes only with a new release (a restart): kept until a reorg clears stable entries.
      return { body: { backend_version: backendVersion() }, policy: 'stable' };
    },
  },
  {
    pattern: '/config/csv-export',
    async handler() {
      return { body: { limit: CSV_EXPORT_ROWS }, policy: 'stable' };
    },
  },
  {
    pattern: '/config/backend',
    async handler() {
      // No chain-specific variant (Blockscout's CHAIN_TYPE) and no Blockscout swagger folder: this
      // API's own version string is not Blockscout's, so the frontend links no swagger for it.
      return { body: { chain_type: null, openapi_spec_folder_name: null }, policy: 'stable' };
    },
  },
  {
    pattern: '/config/smart-contracts/languages',
    async handler() {
      return { body: { languages: CONTRACT_LANGUAGES }, policy: 'stable' };
    },
  },
  {
    pattern: '/config/indexer',
    async handler({ ctx }) {
      const facts = await getFactsWithTime(ctx.pg, ['capabilities', 'pending']);
      const caps = facts.get('capabilities')?.value as { traces?: string } | undefined;
      const pending = facts.get('pending')?.value as { mode?: string } | undefined;
      // What the indexer said when it last started: nothing when it never ran against this store.
      // Block rewards are computed with every block it stores; the NFT metadata fetchers have no
      // counterpart here, so those two flags are not given.
      const on = caps !== undefined;
      const body = {
        indexer_enabled: on,
        internal_transactions_fetcher_enabled: on && caps?.traces !== undefined && caps.traces !== 'off',
        pending_transactions_fetcher_enabled: on && pending !== undefined && pending.mode !== 'off',
        block_reward_fetcher_enabled: on,
      };
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/config/db-background-migrations',
    async handler({ ctx }) {
      // The upgrade's fills while they run: the point rows (src/indexer/point-backfill.ts) and
      // the user operations (src/indexer/user-operations-backfill.ts) of blocks indexed before them.
      const facts = await getFactsWithTime(ctx.pg, [POINT_BACKFILL_FACT, USER_OPERATIONS_BACKFILL]);
      const migrations = [POINT_BACKFILL_FACT, USER_OPERATIONS_BACKFILL].flatMap((name) => {
        const f = facts.get(name);
        const state = f?.value as { done?: boolean; next?: number; to?: number } | null | undefined;
        return f && state && state.done !== true
          ? [{ migration_name: name, status: 'started', updated_at: isoDate(f.updatedAt), meta: { next_block: state.next ?? null, to_block: state.to ?? null } }]
          : [];
      });
      return { body: { migrations }, policy: 'volatile' };
    },
  },
  {
    pattern: '/config/public-metrics',
    async handler() {
      // Blockscout's update_period_hours is how often (and over how many hours) it recomputes the
      // chain metrics it publishes on /public-metrics (PUBLIC_METRICS_*). This explorer publishes
      // none (its Prometheus figures are the operator's, on METRICS_PORT), so there is no period to
      // give: an empty object, which the schema allows, rather than Blockscout's default of 24.
      return { body: {}, policy: 'stable' };
    },
  },
];
