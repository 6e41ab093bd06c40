// A transaction's one-line summary ("Swap 10 ALP for 9.07 BET"): the API's summaries
// (/transactions/{h}/summary, Blockscout's template shape) with their variables filled in: tokens
// and addresses as links, amounts with the digits that matter and the exact figure on hover.
import { AddressLink, Shortened } from './common.js';
import { groupDigits, readableDecimal } from '../format.js';

export interface SummaryVariable {
  type: string;
  value: any;
}

export interface TxSummary {
  summary_template: string;
  summary_template_variables: Record<string, SummaryVariable>;
}

/** Significant digits shown of an amount in a sentence; the exact figure is in its title. */
const DIGITS_SHOWN = 6;

/** A decimal text ("3012.4000001") as read in a sentence: the digits that matter, rounded, never "…" (readableDecimal), with the exact one. */
export function sentenceAmount(v: string): { shown: string; exact: string } {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(v);
  if (!m) return { shown: v, exact: v };
  const frac = m[3] ?? '';
  const exact = m[1] + groupDigits(m[2]) + (frac ? `.${frac}` : '');
  return { shown: readableDecimal(v, DIGITS_SHOWN), exact };
}

function Variable({ v }: { v: SummaryVariable | undefined }) {
  if (!v) return null;
  switch (v.type) {
    case 'token': {
      const t = v.value ?? {};
      const label = t.symbol ?? t.name ?? t.address_hash;
      return (
        <a class="sum-token" href={`/token/${t.address_hash}`} title={t.name && t.symbol ? `${t.name} (${t.address_hash})` : t.address_hash}>
          {label}
        </a>
      );
    }
    case 'address':
      return <AddressLink a={v.value} copy={false} />;
    case 'currency': {
      const a = sentenceAmount(String(v.value));
      return <Shortened shown={a.shown} exact={a.exact} cls="sum-amount" />;
    }
    default:
      return <span>{String(v.value ?? '')}</span>;
  }
}

/** One summary as a sentence: the template's text with each {variable} in place. */
export function SummarySentence({ s, coin }: { s: TxSummary; coin: string }) {
  const parts = s.summary_template.split(/(\{\w+\})/);
  return (
    <>
      {parts.map((p) => {
        const m = /^\{(\w+)\}$/.exec(p);
        if (!m) return p;
        // {native}: the chain's coin, which Blockscout's templates leave to the frontend.
        if (m[1] === 'native' && !s.summary_template_variables.native) return coin;
        return <Variable v={s.summary_template_variables[m[1]]} />;
      })}
    </>
  );
}

/** The summaries at the top of a transaction's page; nothing when the API has none. */
export function TxSummaryLine({ summaries, coin }: { summaries: TxSummary[] | null | undefined; coin: string }) {
  if (!summaries?.length) return null;
  return (
    <section class="tx-summary" aria-label="Summary">
      {summaries.length === 1 ? (
        <p>
          <SummarySentence s={summaries[0]} coin={coin} />
        </p>
      ) : (
        <ul>
          {summaries.map((s) => (
            <li>
              <SummarySentence s={s} coin={coin} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
