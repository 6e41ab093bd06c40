// An address's "funded by" and first/last activity (issue #33), for the rows of its page: read
// from the API's own lists of its transactions in chain order (sort=block_number, asc or desc), a
// page of one item for each end and one page of incoming transactions for the first that carried
// coin. Nothing shown where the API has nothing (an account funded in the genesis block, or only
// by internal transactions, has no funding transaction).
import { AddressLink, Amount, Row, Time, TxLink } from '../components/common.js';
import type { PageCtx } from '../page.js';
import { apiGetOptional } from './errors.js';

export interface Activity {
  first: any | null;
  last: any | null;
  /** The first incoming transaction that carried coin. */
  funding: any | null;
}

type Page = { items?: any[] };

export async function addressActivity(ctx: PageCtx, h: string): Promise<Activity> {
  const v2 = `/api/v2/addresses/${h}/transactions`;
  const [first, last, incoming] = await Promise.all([
    apiGetOptional<Page>(ctx, `${v2}?sort=block_number&order=asc&items_count=1`),
    apiGetOptional<Page>(ctx, `${v2}?items_count=1`),
    apiGetOptional<Page>(ctx, `${v2}?filter=to&sort=block_number&order=asc`),
  ]);
  const funding = (incoming?.items ?? []).find((t) => t.to?.hash?.toLowerCase() === h && /^[1-9]\d*$/.test(String(t.value)) && t.status !== 'error') ?? null;
  return { first: first?.items?.[0] ?? null, last: last?.items?.[0] ?? null, funding };
}

/** The rows of the address's details: funded by, first and last transaction. */
export function ActivityRows({ act, coin }: { act: Activity; coin: string }) {
  return (
    <>
      {act.funding ? (
        <Row label="Funded by" hint="The first incoming transaction that sent it coin">
          <AddressLink a={act.funding.from} />{' '}
          <span class="muted">
            with <Amount value={act.funding.value} decimals={18} symbol={coin} max={8} /> at <TxLink hash={act.funding.hash} /> (<Time iso={act.funding.timestamp} />)
          </span>
        </Row>
      ) : null}
      {act.first ? (
        <Row label="First transaction">
          <TxLink hash={act.first.hash} /> <Time iso={act.first.timestamp} />
        </Row>
      ) : null}
      {act.last ? (
        <Row label="Last transaction">
          <TxLink hash={act.last.hash} /> <Time iso={act.last.timestamp} />
        </Row>
      ) : null}
    </>
  );
}
