// The contract tab's verification parts: the match badge and compiler facts (or, for a contract
// nobody verified, the link to the verify form), constructor arguments, the source files (main
// first), the ABI and compiler settings as JSON. A source file is two text
// nodes (line numbers, code) however long it is, so a 1000-line file stays as light as its text.
// The method forms (read with arguments, write) are in contract-methods.tsx.
import type { VNode } from 'preact';
import { Copy, Row, Time } from './common.js';

/** Blockscout's license_type keys (the verification config's), in words. */
export const LICENSE_LABELS: Record<string, string> = {
  none: 'No license (none)',
  unlicense: 'The Unlicense',
  mit: 'MIT License',
  gnu_gpl_v2: 'GNU GPLv2',
  gnu_gpl_v3: 'GNU GPLv3',
  gnu_lgpl_v2_1: 'GNU LGPLv2.1',
  gnu_lgpl_v3: 'GNU LGPLv3',
  bsd_2_clause: 'BSD 2-clause',
  bsd_3_clause: 'BSD 3-clause',
  mpl_2_0: 'Mozilla Public License 2.0',
  osl_3_0: 'Open Software License 3.0',
  apache_2_0: 'Apache 2.0',
  gnu_agpl_v3: 'GNU AGPLv3',
  bsl_1_1: 'Business Source License 1.1',
};

interface AbiParam {
  name?: string;
  type: string;
}

/** /api/v2/smart-contracts/{address} as far as this tab reads it. */
export interface SmartContract {
  is_verified: boolean;
  is_fully_verified?: boolean | null;
  is_partially_verified?: boolean | null;
  name?: string | null;
  compiler_version?: string | null;
  optimization_enabled?: boolean | null;
  optimization_runs?: number | null;
  evm_version?: string | null;
  verified_at?: string | null;
  abi?: unknown[] | null;
  source_code?: string | null;
  file_path?: string | null;
  additional_sources?: { file_path: string; source_code: string }[] | null;
  compiler_settings?: unknown;
  external_libraries?: { name: string; address_hash: string }[] | null;
  constructor_args?: string | null;
  decoded_constructor_args?: [unknown, AbiParam][] | null;
  language?: string | null;
  license_type?: string | null;
  creation_status?: string | null;
  proxy_type?: string | null;
  implementations?: Implementation[] | null;
}

/** A proxy's implementation as the API names it. */
export interface Implementation {
  address_hash: string;
  name: string | null;
}

/** How each proxy kind (Blockscout's proxy_type) is called on the pages. */
const PROXY_LABELS: Record<string, string> = {
  eip1167: 'EIP-1167 minimal proxy',
  eip1967: 'EIP-1967 proxy',
  eip1967_beacon: 'EIP-1967 beacon proxy',
  eip1967_oz: 'OpenZeppelin proxy (zos slot)',
  eip1822: 'EIP-1822 proxy (UUPS)',
  eip7702: 'EIP-7702 delegation',
};

export function proxyLabel(type: string | null | undefined): string {
  return type ? (PROXY_LABELS[type] ?? type) : 'Proxy';
}

/** "EIP-1967 proxy of Box (0x…)": what a proxy delegates to, each implementation a link. */
export function ProxyOf({ type, implementations }: { type: string | null | undefined; implementations: Implementation[] }) {
  return (
    <span class="proxy-of">
      {proxyLabel(type)} of{' '}
      {implementations.map((i, n) => (
        <>
          {n ? ', ' : null}
          <a href={`/address/${i.address_hash}?tab=contract`} class="mono break">
            {i.name ? `${i.name} (${i.address_hash})` : i.address_hash}
          </a>
        </>
      ))}
    </span>
  );
}

/** A decoded argument as text: lists (arrays, tuples) bracketed. */
function argText(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(argText).join(', ')}]`;
  return v === null || v === undefined ? '' : String(v);
}

export function MatchBadge({ sc }: { sc: SmartContract }) {
  if (!sc.is_verified) return <span class="status pending">Not verified</span>;
  return sc.is_partially_verified ? (
    <span class="status ok" title="The compiled code is the deployed one except for the metadata hash (comments, file names or settings differ)">
      Verified (partial match: metadata differs)
    </span>
  ) : (
    <span class="status ok">Verified (full match)</span>
  );
}

/**
 * The contract's first card: verified or not (with the verify form's link), and for a verified
 * contract what it was compiled with, when it was verified and its constructor arguments.
 */
export function ContractSummary({ sc, address, started }: { sc: SmartContract; address: string; started: boolean }) {
  const creation = sc.creation_status === 'success' ? 'Created' : sc.creation_status === 'selfdestructed' ? 'Self-destructed' : sc.creation_status;
  return (
    <section class="card" aria-labelledby="contract-h">
      <h2 id="contract-h">Contract</h2>
      {started && !sc.is_verified ? <VerificationNote address={address} /> : null}
      <dl class="details">
        <Row label="Source code">
          <MatchBadge sc={sc} />{' '}
          {sc.is_verified ? null : (
            <span class="muted">
              Its source code and ABI are not known. <a href={`/address/${address}/verify`}>Verify and publish</a> its source code.
            </span>
          )}
        </Row>
        {sc.is_verified ? (
          <>
            <Row label="Contract name">
              <span class="mono">{sc.name ?? '—'}</span>
            </Row>
            <Row label="Compiler">
              <span class="mono">{sc.compiler_version ?? '—'}</span>
            </Row>
            <Row label="EVM version">{sc.evm_version ?? 'default'}</Row>
            <Row label="Optimization">{sc.optimization_enabled ? `Yes, ${sc.optimization_runs ?? '?'} runs` : 'No'}</Row>
            <Row label="Language">{sc.language === 'solidity' ? 'Solidity' : sc.language ?? '—'}</Row>
            <Row label="License">{sc.license_type ? LICENSE_LABELS[sc.license_type] ?? sc.license_type : '—'}</Row>
            <Row label="Verified">
              <Time iso={sc.verified_at} />
            </Row>
            {sc.external_libraries?.length ? (
              <Row label="Libraries">
                <ul class="arg-list">
                  {sc.external_libraries.map((l) => (
                    <li>
                      {l.name}: <a href={`/address/${l.address_hash}`} class="mono">{l.address_hash}</a>
                    </li>
                  ))}
                </ul>
              </Row>
            ) : null}
            {sc.constructor_args ? (
              <Row label="Constructor arguments">
                <ConstructorArgs sc={sc} />
              </Row>
            ) : null}
          </>
        ) : null}
        {sc.implementations?.length ? (
          <Row label="Proxy">
            <ProxyOf type={sc.proxy_type} implementations={sc.implementations} />
            <span class="muted"> — calls run the implementation's code on this contract's storage.</span>
          </Row>
        ) : null}
        {creation ? <Row label="Creation">{creation}</Row> : null}
      </dl>
    </section>
  );
}

function ConstructorArgs({ sc }: { sc: SmartContract }) {
  const decoded = sc.decoded_constructor_args ?? [];
  return (
    <>
      {decoded.length ? (
        <ol class="arg-list">
          {decoded.map(([value, p]) => (
            <li>
              <span class="muted mono">
                {p.type}
                {p.name ? ` ${p.name}` : ''}
              </span>{' '}
              <span class="mono break">{argText(value)}</span>
            </li>
          ))}
        </ol>
      ) : null}
      <details class="raw-args">
        <summary>ABI-encoded ({(sc.constructor_args ?? '').length / 2} bytes)</summary>
        <pre class="code-block break">{sc.constructor_args}</pre>
      </details>
    </>
  );
}

/** "Verification started": with JavaScript the verify island waits for the result on the websocket. */
export function VerificationNote({ address }: { address: string }) {
  return (
    <div class="verify-note" role="status" data-verify-wait={address}>
      <p>
        Verification started: the result appears here when the compile finishes (usually seconds). <span data-verify-hint>Reload the page to see it.</span>
      </p>
      <p class="form-error" data-verify-error hidden />
    </div>
  );
}

/** Lines of `text` as a <pre> shows them (a final newline ends the last line, it starts none). */
function lineCount(text: string): number {
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

function numbers(n: number): string {
  let s = '1';
  for (let i = 2; i <= n; i++) s += `\n${i}`;
  return s;
}

/** One source file, folded under its path; the main one open. */
function SourceFile({ path, code, id, open }: { path: string; code: string; id: string; open: boolean }) {
  return (
    <details class="src-file" open={open}>
      <summary>
        <span class="mono break">{path}</span> <span class="muted">{lineCount(code)} lines</span>
      </summary>
      <div class="src-tools">
        <Copy from={id} label={`the source of ${path}`} />
      </div>
      <div class="src-code" role="region" tabindex={0} aria-label={`Source of ${path}`}>
        <pre class="src-lines" aria-hidden="true">
          {numbers(lineCount(code))}
        </pre>
        <pre class="src-text" id={id}>
          <code>{code}</code>
        </pre>
      </div>
    </details>
  );
}

/** The verified sources: the contract's own file first, then every file it imports. */
export function SourceFiles({ sc }: { sc: SmartContract }) {
  const files = [{ file_path: sc.file_path ?? 'source', source_code: sc.source_code ?? '' }, ...(sc.additional_sources ?? [])];
  return (
    <section class="card" aria-labelledby="source-h">
      <h2 id="source-h">
        Source code<span class="muted more">{files.length === 1 ? '1 file' : `${files.length} files`}</span>
      </h2>
      {files.map((f, i) => (
        <SourceFile path={f.file_path} code={f.source_code} id={`src-${i}`} open={i === 0} />
      ))}
    </section>
  );
}

/** A JSON value folded under `title`, with a copy button. */
export function JsonBlock({ title, value, id }: { title: string; value: unknown; id: string }): VNode {
  return (
    <details class="card json-box">
      <summary>{title}</summary>
      <div class="src-tools">
        <Copy from={id} label={title} />
      </div>
      <pre class="code-block" id={id} tabindex={0} role="region" aria-label={title}>
        {JSON.stringify(value, null, 2)}
      </pre>
    </details>
  );
}
