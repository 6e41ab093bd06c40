// The account's custom ABIs (how the explorer decodes a contract's calls and logs for this account):
// the list, adding one (pasted, or read from a .json file by the account island, which also checks
// it before it is sent), replacing one (a POST for the same contract replaces its ABI) and removing
// one after a confirmation page. The Account API's check (src/account/abi.ts) stays the truth.
import { AddressLink, Empty, Table } from '../../components/common.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import { PageError } from '../errors.js';
import { Csrf, FormError, apiProblem, refused } from './account-forms.js';
import { AccountNav, needSignIn } from './profile.js';
import { ConfirmRemove, Done, RECORD_ID, findRecord, listOf } from './records.js';

const API = '/account/api/v1/user/custom-abis';
const SECTION = '/account/custom-abis';
/** The Account API's limits (src/account/app.ts LIMITS.customAbis, NAME_MAX.other; its body cap). */
const MAX_ABIS = 1_000;
const NAME_MAX = 255;
const BODY_KIB = 256;
/** An ABI longer than this (as JSON) is put into the replace form compact rather than indented. */
const INDENT_BELOW = 32 * 1024;

interface CustomAbi {
  id: string;
  contract_address_hash: string;
  name: string;
  abi: { type?: string }[];
}

interface AbiValues {
  address: string;
  name: string;
  abi: string;
}

const DONE = {
  added: 'The ABI is saved: calls and logs of the contract are decoded with it for you.',
  saved: 'The ABI is replaced.',
  removed: 'The ABI is removed.',
};

/** "3 functions, 2 events" of an ABI. */
export function abiSummary(abi: { type?: string }[]): string {
  const n = (type: string) => abi.filter((i) => i?.type === type).length;
  const plural = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  return `${plural(n('function'), 'function')}, ${plural(n('event'), 'event')}`;
}

/** The name and ABI inputs (the address too when adding); the file input appears with JavaScript only. */
function AbiFields({ prefix, v, withAddress, errorId }: { prefix: string; v: AbiValues; withAddress: boolean; errorId?: string }) {
  return (
    <>
      {withAddress ? (
        <>
          <label for={`${prefix}-address`}>Contract address</label>
          <input
            id={`${prefix}-address`}
            name="contract_address_hash"
            class="mono"
            required
            pattern="0x[0-9a-fA-F]{40}"
            maxLength={42}
            placeholder="0x…"
            spellcheck={false}
            autocomplete="off"
            value={v.address}
            aria-describedby={errorId}
          />
        </>
      ) : null}
      <label for={`${prefix}-name`}>Name</label>
      <input id={`${prefix}-name`} name="name" required maxLength={NAME_MAX} autocomplete="off" value={v.name} aria-describedby={errorId} />
      <label for={`${prefix}-abi`}>ABI (JSON array)</label>
      <textarea id={`${prefix}-abi`} name="abi" required rows={10} spellcheck={false} data-abi placeholder='[{"type":"function","name":"transfer","inputs":[…]}, …]' aria-describedby={errorId}>
        {v.abi}
      </textarea>
      <div class="abi-file" data-abi-file hidden>
        <label for={`${prefix}-abi-file`}>Or read it from a .json file</label>
        <input type="file" id={`${prefix}-abi-file`} accept=".json,application/json" data-abi-target={`${prefix}-abi`} />
      </div>
    </>
  );
}

function AbisView({ ctx, abis, add, error }: { ctx: PageCtx; abis: CustomAbi[]; add: AbiValues; error?: string | null }) {
  return (
    <>
      <h1>Custom ABIs</h1>
      <AccountNav current={SECTION} />
      {error ? null : <Done ctx={ctx} texts={DONE} />}
      <section class="card" aria-labelledby="abis-h">
        <h2 id="abis-h">Your ABIs</h2>
        {abis.length ? (
          <Table head={['Name', 'Contract', 'Items', 'Actions']} caption="Custom ABIs">
            {abis.map((a) => (
              <tr id={`abi-${a.id}`}>
                <td class="record-name">{a.name}</td>
                <td>
                  <AddressLink a={a.contract_address_hash} />
                </td>
                <td>{abiSummary(a.abi)}</td>
                <td class="record-actions">
                  <a href={`${SECTION}/${a.id}/edit`} aria-label={`Replace ${a.name}`}>
                    Replace
                  </a>
                  <a href={`${SECTION}/${a.id}/remove`} aria-label={`Remove ${a.name}`}>
                    Remove
                  </a>
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          <Empty>No custom ABI yet. With one, the calls and logs of a contract that is not verified are decoded for you.</Empty>
        )}
      </section>
      <section class="card" id="add" aria-labelledby="add-h">
        <h2 id="add-h">Add an ABI</h2>
        <p class="muted">
          A contract has one custom ABI: adding one for a contract that has one replaces it ({abis.length} of at most {MAX_ABIS}; at most {BODY_KIB} KiB each).
        </p>
        <form method="post" action={SECTION} class="form abi-form" data-abi-check>
          <Csrf ctx={ctx} />
          <AbiFields prefix="add" v={add} withAddress errorId={error ? 'add-error' : undefined} />
          <FormError id="add-error" error={error} />
          <button type="submit" class="button">
            Add ABI
          </button>
        </form>
      </section>
    </>
  );
}

async function listPage(ctx: PageCtx, extra: { add?: AbiValues; error?: string | null } = {}): Promise<PageResult> {
  const abis = await listOf<CustomAbi>(ctx, API, 'custom ABIs');
  const address = ctx.url.searchParams.get('address') ?? '';
  const add = extra.add ?? { address: /^0x[0-9a-fA-F]{40}$/.test(address) ? address : '', name: '', abi: '' };
  return { title: 'Custom ABIs · Explorer', cache: false, islands: ['account'], body: <AbisView ctx={ctx} abis={abis} add={add} error={extra.error} /> };
}

export async function customAbisPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? listPage(ctx);
}

/** The ABI `:id` of the account (an id that is not a record id never reaches the API), or a 404 page. */
async function abiOf(ctx: PageCtx): Promise<CustomAbi> {
  const id = ctx.params.id ?? '';
  if (!RECORD_ID.test(id)) throw new PageError(404, 'No such custom ABI', 'This is not the id of a custom ABI. Back to your custom ABIs.');
  return findRecord(await listOf<CustomAbi>(ctx, API, 'custom ABIs'), id, 'custom ABI', 'your custom ABIs');
}

function EditView({ ctx, a, v, error }: { ctx: PageCtx; a: CustomAbi; v: AbiValues; error?: string | null }) {
  return (
    <>
      <h1>Replace a custom ABI</h1>
      <AccountNav current={SECTION} />
      <section class="card" aria-labelledby="edit-h">
        <h2 id="edit-h">
          “{a.name}” for <AddressLink a={a.contract_address_hash} full copy={false} />
        </h2>
        <p class="muted">Now: {abiSummary(a.abi)}. For another contract, add an ABI for it instead.</p>
        <form method="post" action={`${SECTION}/${a.id}/edit`} class="form abi-form" data-abi-check>
          <Csrf ctx={ctx} />
          <AbiFields prefix="edit" v={v} withAddress={false} errorId={error ? 'edit-error' : undefined} />
          <FormError id="edit-error" error={error} />
          <div class="form-buttons">
            <button type="submit" class="button">
              Replace
            </button>
            <a href={SECTION}>Cancel</a>
          </div>
        </form>
      </section>
    </>
  );
}

function editPage(ctx: PageCtx, a: CustomAbi, v?: AbiValues, error?: string | null): PageResult {
  const json = JSON.stringify(a.abi);
  const values = v ?? { address: a.contract_address_hash, name: a.name, abi: json.length < INDENT_BELOW ? JSON.stringify(a.abi, null, 2) : json };
  return { title: 'Replace a custom ABI · Explorer', cache: false, islands: ['account'], body: <EditView ctx={ctx} a={a} v={values} error={error} /> };
}

export async function customAbiEditPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? editPage(ctx, await abiOf(ctx));
}

function removePage(ctx: PageCtx, a: CustomAbi, error?: string): PageResult {
  return {
    title: 'Remove a custom ABI · Explorer',
    cache: false,
    body: (
      <ConfirmRemove
        ctx={ctx}
        section={SECTION}
        title="Remove a custom ABI"
        consequence="The contract's calls and logs are no longer decoded with it for you (a verified contract's own ABI still is)."
        action={`${SECTION}/${a.id}/remove`}
        verb="Remove the ABI"
        error={error}
      >
        <p>
          The ABI <strong>{a.name}</strong> ({abiSummary(a.abi)}) for <AddressLink a={a.contract_address_hash} full copy={false} />.
        </p>
      </ConfirmRemove>
    ),
  };
}

export async function customAbiRemovePage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? removePage(ctx, await abiOf(ctx));
}

const valuesOf = (form: Record<string, string>): AbiValues => ({ address: (form.contract_address_hash ?? '').trim(), name: (form.name ?? '').trim(), abi: form.abi ?? '' });

/**
 * The ABI as the Account API takes it: the parsed JSON (no indentation or escaping counted against
 * its body cap), or the text as it is when it is not JSON (the API then says what is wrong).
 */
function abiBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const CUSTOM_ABI_ACTIONS: ActionDef[] = [
  {
    pattern: SECTION,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const v = valuesOf(ctx.form);
      const r = await ctx.api.send('POST', API, { contract_address_hash: v.address, name: v.name, abi: abiBody(v.abi) });
      if (r.status === 201 || r.status === 200) return { redirect: `${SECTION}?done=added` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, await listPage(ctx, { add: v, error: apiProblem(r, 'The ABI could not be saved') }));
    },
  },
  {
    pattern: `${SECTION}/:id/edit`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const a = await abiOf(ctx);
      const v = { ...valuesOf(ctx.form), address: a.contract_address_hash };
      const r = await ctx.api.send('POST', API, { contract_address_hash: a.contract_address_hash, name: v.name, abi: abiBody(v.abi) });
      if (r.status === 201 || r.status === 200) return { redirect: `${SECTION}?done=saved` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, editPage(ctx, a, v, apiProblem(r, 'The ABI could not be replaced')));
    },
  },
  {
    pattern: `${SECTION}/:id/remove`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const a = await abiOf(ctx);
      const r = await ctx.api.send('DELETE', `${API}/${a.id}`, undefined);
      if (r.status === 200) return { redirect: `${SECTION}?done=removed` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, removePage(ctx, a, apiProblem(r, 'The ABI could not be removed')));
    },
  },
];
