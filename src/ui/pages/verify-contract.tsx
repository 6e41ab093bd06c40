// The verify form (/address/:hash/verify): a contract's standard JSON input (pasted, or chosen as a
// .json file: posted as multipart, so the file works without JavaScript too), the compiler version,
// the contract's name and license. The UI's action forwards it to the API's standard-input
// verification and sends the visitor to the contract tab, where the result appears (the verify
// island waits for it on the websocket). Anyone may verify, as on Blockscout; the API's refusals
// are shown in the form with what was typed kept.
import { Row } from '../components/common.js';
import { LICENSE_LABELS } from '../components/contract-source.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../page.js';
import { apiMessage, apiProblem, formStatus, Csrf, FormError } from './account/account-forms.js';
import { apiGet, apiGetOptional, PageError } from './errors.js';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** The largest form this page sends: the API's default VERIFY_MAX_INPUT_MB (it checks its own limit too). */
export const VERIFY_FORM_BYTES = 10 * 1024 * 1024;

interface VerifyConfig {
  solidity_compiler_versions: string[];
  verification_options: string[];
  license_types: Record<string, number>;
}

interface Values {
  compiler_version: string;
  contract_name: string;
  license_type: string;
  input: string;
}

const EMPTY: Values = { compiler_version: '', contract_name: '', license_type: 'none', input: '' };

function addressOf(ctx: PageCtx): string {
  const h = ctx.params.hash;
  if (!ADDRESS_RE.test(h)) throw new PageError(400, 'Invalid address', `"${h.slice(0, 80)}" is not an address: an address is 0x followed by 40 hexadecimal digits.`);
  return h;
}

function VerifyForm({ ctx, address, config, values, error }: { ctx: PageCtx; address: string; config: VerifyConfig; values: Values; error?: string }) {
  const errorId = error ? 'verify-error' : undefined;
  const licenses = Object.keys(config.license_types);
  return (
    <section class="card" aria-labelledby="verify-h">
      <h2 id="verify-h">Solidity standard JSON input</h2>
      <p class="muted">
        The input your build tool gives the compiler (Hardhat's build-info <code>input</code>, Foundry's <code>forge verify-contract --show-standard-json-input</code>): every source file
        and the settings. The compiled code must be the deployed one.
      </p>
      <form method="post" action={`/address/${address}/verify`} enctype="multipart/form-data" class="form verify-form" data-verify-form={address}>
        {ctx.viewer ? <Csrf ctx={ctx} /> : null}
        <label for="compiler_version">Compiler version</label>
        <select id="compiler_version" name="compiler_version" required>
          {config.solidity_compiler_versions.map((v) => (
            <option value={v} selected={v === values.compiler_version}>
              {v}
            </option>
          ))}
        </select>
        <label for="contract_name">Contract name</label>
        <input id="contract_name" name="contract_name" required value={values.contract_name} placeholder="MyToken or contracts/MyToken.sol:MyToken" autocomplete="off" spellcheck={false} aria-describedby={errorId} />
        <label for="license_type">License</label>
        <select id="license_type" name="license_type">
          {licenses.map((l) => (
            <option value={l} selected={l === values.license_type}>
              {LICENSE_LABELS[l] ?? l}
            </option>
          ))}
        </select>
        <label for="input">Standard JSON input</label>
        <textarea id="input" name="input" rows={12} spellcheck={false} placeholder='{"language":"Solidity","sources":{…},"settings":{…}}' aria-describedby={errorId}>
          {values.input}
        </textarea>
        <label for="input_file">Or choose the .json file</label>
        <input type="file" id="input_file" name="input_file" accept=".json,application/json" />
        <FormError error={error} id={errorId} />
        <button type="submit" class="button">
          Verify and publish
        </button>
      </form>
    </section>
  );
}

function Head({ address }: { address: string }) {
  return (
    <>
      <h1>Verify and publish a contract</h1>
      <dl class="details">
        <Row label="Contract">
          <a href={`/address/${address}?tab=contract`} class="mono break">
            {address}
          </a>
        </Row>
      </dl>
    </>
  );
}

async function formPage(ctx: PageCtx, address: string, values: Values, error?: string): Promise<PageResult> {
  const [sc, config] = await Promise.all([apiGetOptional<{ is_verified: boolean }>(ctx, `/api/v2/smart-contracts/${address}`), apiGet<VerifyConfig>(ctx, '/api/v2/smart-contracts/verification/config', 'Verification settings')]);
  const title = `Verify contract ${address} · Explorer`;
  let body;
  if (!sc) {
    body = <p>This address is not a contract (no code is known for it), so there is nothing to verify.</p>;
  } else if (sc.is_verified) {
    body = (
      <p>
        This contract is verified already: <a href={`/address/${address}?tab=contract`}>see its source code</a>.
      </p>
    );
  } else if (!config.verification_options.includes('standard-input') || !config.solidity_compiler_versions.length) {
    body = <p>Contract verification is not enabled on this explorer.</p>;
  } else {
    body = <VerifyForm ctx={ctx} address={address} config={config} values={{ ...values, compiler_version: values.compiler_version || config.solidity_compiler_versions[0] }} error={error} />;
  }
  return {
    title,
    description: `Verify the source code of the contract ${address}.`,
    section: 'contracts',
    islands: ['verify'],
    // It depends on the verification state (no block changes it) and, after a refusal, on what was sent.
    cache: false,
    body: (
      <>
        <Head address={address} />
        {body}
      </>
    ),
  };
}

export async function verifyPage(ctx: PageCtx): Promise<PageResult> {
  return formPage(ctx, addressOf(ctx), EMPTY);
}

export const VERIFY_ACTIONS: ActionDef[] = [
  {
    pattern: '/address/:hash/verify',
    // Anyone may verify a contract (Blockscout lets them); the origin check still applies.
    signedIn: false,
    maxBytes: VERIFY_FORM_BYTES,
    async run(ctx): Promise<ActionResult> {
      const address = addressOf(ctx);
      const f = ctx.form;
      // A chosen file wins over the text area (with JavaScript the island has moved it there already).
      const values: Values = {
        compiler_version: (f.compiler_version ?? '').trim(),
        contract_name: (f.contract_name ?? '').trim(),
        license_type: f.license_type ?? 'none',
        input: f.input_file?.trim() ? f.input_file : f.input ?? '',
      };
      const again = async (error: string, status: number): Promise<ActionResult> => ({ page: { ...(await formPage(ctx, address, values, error)), status } });
      if (!values.input.trim()) return again('Paste the standard JSON input or choose its .json file.', 400);
      const r = await ctx.api.send<{ message?: string }>('POST', `/api/v2/smart-contracts/${address}/verification/via/standard-input`, values);
      if (r.status === 200) {
        const already = apiMessage(r.body, '') === 'Already verified';
        return { redirect: `/address/${address}?tab=contract${already ? '' : '&verification=started'}` };
      }
      return again(r.status === 404 ? apiMessage(r.body, 'Contract verification is not enabled on this explorer.') : apiProblem(r, 'The verification was refused'), formStatus(r));
    },
  },
];
