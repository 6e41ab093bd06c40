// Contract verification's island. On the verify form: a chosen .json file is read into the text
// area (the file input is then emptied so the input is not sent twice), and once the address's
// websocket topic is joined the form is sent in the background, so a result that comes at once
// (a wrong contract name fails before any compile) is not missed: success opens the contract
// tab, a failure is shown in the form with everything kept. On the contract tab after
// "Verification started" (a form sent without it): reloads on success or shows the error. Without
// this island the form posts natively and the tab shows the result on a reload.
import { joinTopic, socketUrl } from './phoenix.js';

type Result = { status?: string; errors?: { contract_source_code?: string[] } };

/**
 * Joins `addresses:<address>` and calls `onResult` with each verification_result; `joined`
 * resolves true once joined (false when there is no socket or it closed first).
 */
function listen(address: string, onResult: (r: Result) => void): { joined: Promise<boolean> } {
  const url = socketUrl();
  if (!url) return { joined: Promise.resolve(false) };
  let joinedNow: (ok: boolean) => void = () => {};
  const joined = new Promise<boolean>((resolve) => (joinedNow = resolve));
  joinTopic(url, `addresses:${address.toLowerCase()}`, {
    frame(f) {
      if (f[3] === 'phx_reply' && f[1] === '1') joinedNow(f[4].status === 'ok');
      else if (f[3] === 'verification_result') onResult(f[4] as Result);
    },
    close: () => joinedNow(false),
  });
  return { joined };
}

const failure = (r: Result) => `Verification failed: ${(r.errors?.contract_source_code ?? ['no reason given']).join('; ')}`;

/** The contract tab's URL (without the "verification started" mark). */
const tabUrl = (address: string) => `/address/${address}?tab=contract`;

function verifyForm(): void {
  const form = document.querySelector<HTMLFormElement>('form[data-verify-form]');
  const file = form?.querySelector<HTMLInputElement>('input[type=file]');
  const area = form?.querySelector<HTMLTextAreaElement>('textarea');
  const button = form?.querySelector<HTMLButtonElement>('button[type=submit]');
  if (!form || !file || !area || !button) return;
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (!f) return;
    area.value = await f.text();
    file.value = '';
    area.focus();
  });
  const address = form.dataset.verifyForm!;
  // The server's own error (a refused post) is reused for the island's messages.
  const error = form.querySelector<HTMLElement>('.form-error') ?? Object.assign(document.createElement('p'), { className: 'form-error', id: 'verify-error', hidden: true });
  error.setAttribute('role', 'alert');
  const status = Object.assign(document.createElement('p'), { className: 'form-ok' });
  status.setAttribute('role', 'status');
  button.before(error, status);
  const say = (ok: string, bad: string) => {
    status.textContent = ok;
    error.textContent = bad;
    error.hidden = !bad;
  };
  // A result may come before the post's answer does: it is kept until the answer says "started".
  let sent = false;
  let started = false;
  let result: Result | null = null;
  const settle = () => {
    if (!started || !result) return;
    const r = result;
    sent = started = false;
    result = null;
    if (r.status === 'success') {
      location.assign(tabUrl(address));
      return;
    }
    say('', failure(r));
    button.disabled = false;
  };
  let joined = false;
  listen(address, (r) => {
    if (!sent) return;
    result = r;
    settle();
  }).joined.then((ok) => (joined = ok));
  form.addEventListener('submit', async (e) => {
    // Not joined (no socket): the plain post, and the tab shows the result on a reload.
    if (!joined) return;
    e.preventDefault();
    button.disabled = true;
    say('Sending…', '');
    sent = true;
    started = false;
    result = null;
    let r: Response;
    try {
      r = await fetch(form.action, { method: 'POST', body: new FormData(form) });
    } catch {
      sent = false;
      say('', 'The explorer did not answer: try again in a moment.');
      button.disabled = false;
      return;
    }
    if (r.redirected && new URL(r.url).searchParams.get('verification') === 'started') {
      started = true;
      say('Verification started: the result appears here when the compile finishes (usually seconds).', '');
      settle();
      return;
    }
    sent = false;
    if (r.redirected) {
      location.assign(r.url); // verified already
      return;
    }
    // Refused: the form page came back with the reason in its error.
    const page = new DOMParser().parseFromString(await r.text(), 'text/html');
    say('', page.querySelector('form[data-verify-form] .form-error')?.textContent ?? `The explorer answered ${r.status}: try again in a moment.`);
    button.disabled = false;
  });
}

/** The tab after a post without this island: waits for the result of the verification it started. */
function waitOnTab(): void {
  const note = document.querySelector<HTMLElement>('[data-verify-wait]');
  if (!note) return;
  const address = note.dataset.verifyWait!;
  const hint = note.querySelector<HTMLElement>('[data-verify-hint]');
  const error = note.querySelector<HTMLElement>('[data-verify-error]');
  listen(address, (r) => {
    if (r.status === 'success') {
      location.replace(tabUrl(address));
      return;
    }
    if (hint) hint.textContent = '';
    if (error) {
      error.textContent = failure(r);
      error.hidden = false;
    }
  }).joined.then(async (ok) => {
    if (!ok) return;
    if (hint) hint.textContent = 'This page reloads by itself when it is done.';
    // A compile that finished before the join told nobody: the tab itself says whether it did.
    const r = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-cache' });
    if (r.ok && !(await r.text()).includes('data-verify-wait')) location.replace(tabUrl(address));
  });
}

verifyForm();
waitOnTab();
