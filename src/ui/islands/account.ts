// The account pages' island: a live "12/35" under inputs marked data-count, custom ABIs read from a
// .json file and checked before they are sent, and a POST answer that shows a secret made
// reloadable without sending the form again. The pages work without it; the server decides.

/** Item types of a JSON ABI (the Account API checks far more: src/account/abi.ts). */
const ABI_TYPES = ['function', 'event', 'error', 'constructor', 'fallback', 'receive'];
/** The largest form src/ui/actions.ts takes (MAX_FORM_BYTES), and the Account API's body cap. */
const FORM_BYTES = 300 * 1024;
const API_BYTES = 256 * 1024;

/** Points `el` at the element `id` for screen readers, keeping what it pointed at already. */
function describe(el: Element, id: string): void {
  const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
  if (!ids.includes(id)) el.setAttribute('aria-describedby', [...ids, id].join(' '));
}

function counters(): void {
  for (const input of document.querySelectorAll<HTMLInputElement>('input[data-count][maxlength]')) {
    const out = document.createElement('span');
    out.className = 'char-count';
    out.id = `${input.id}-count`;
    input.after(out);
    describe(input, out.id);
    // Characters as the server counts them (code points), against the same limit maxlength sets.
    const show = () => (out.textContent = `${[...input.value].length}/${input.maxLength}`);
    input.addEventListener('input', show);
    show();
  }
}

/** What is wrong with `text` as an ABI, or null (the array's items are checked for a known `type` only). */
function abiProblem(text: string): string | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return `This is not valid JSON: ${(e as Error).message}`;
  }
  if (!Array.isArray(v)) return 'An ABI is a JSON array of items ([{"type":"function", …}, …]).';
  if (!v.length) return 'The ABI is empty: it needs at least one item.';
  const bad = v.findIndex((i) => !i || typeof i !== 'object' || Array.isArray(i) || !ABI_TYPES.includes((i as { type?: unknown }).type as string));
  if (bad >= 0) return `Item ${bad} has no valid "type": it must be one of ${ABI_TYPES.join(', ')}.`;
  const compact = JSON.stringify(v);
  if (new Blob([compact]).size > API_BYTES) return `The ABI is too large: ${Math.ceil(new Blob([compact]).size / 1024)} KiB, at most ${API_BYTES / 1024} KiB are taken.`;
  return null;
}

function abiForms(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-abi-check]')) {
    const area = form.querySelector<HTMLTextAreaElement>('textarea[data-abi]');
    if (!area) continue;
    const msg = document.createElement('p');
    msg.className = 'form-error';
    msg.id = `${area.id}-check`;
    msg.setAttribute('role', 'alert');
    msg.hidden = true;
    area.after(msg);
    describe(area, msg.id);
    const check = (): boolean => {
      const problem = abiProblem(area.value);
      msg.textContent = problem ?? '';
      msg.hidden = !problem;
      area.setAttribute('aria-invalid', problem ? 'true' : 'false');
      return !problem;
    };
    // Re-checked as it is typed once a problem is shown (not on blur: the message going away then
    // would move the submit button from under a click that is on its way).
    area.addEventListener('input', () => {
      if (!msg.hidden) check();
    });
    form.addEventListener('submit', (e) => {
      if (!check()) {
        e.preventDefault();
        area.focus();
        return;
      }
      // Sent compact: indentation would count against the form's size for nothing.
      const compact = JSON.stringify(JSON.parse(area.value));
      if (new URLSearchParams({ abi: compact }).toString().length > FORM_BYTES - 4096) {
        e.preventDefault();
        msg.textContent = 'The ABI is too large to send from this form: remove items it does not need (e.g. errors).';
        msg.hidden = false;
        return;
      }
      area.value = compact;
    });
    const box = form.querySelector<HTMLElement>('[data-abi-file]');
    const file = box?.querySelector<HTMLInputElement>('input[type=file]');
    if (!box || !file) continue;
    box.hidden = false;
    file.addEventListener('change', async () => {
      const f = file.files?.[0];
      if (!f) return;
      if (f.size > 4 * API_BYTES) {
        msg.textContent = `The file is too large (${Math.ceil(f.size / 1024)} KiB): an ABI takes at most ${API_BYTES / 1024} KiB.`;
        msg.hidden = false;
        return;
      }
      let text = await f.text();
      // A compiler artifact (Hardhat, Foundry, Truffle) holds the ABI under "abi".
      try {
        const v = JSON.parse(text) as { abi?: unknown };
        if (v && !Array.isArray(v) && Array.isArray(v.abi)) text = JSON.stringify(v.abi, null, 2);
      } catch {
        // Not JSON: shown as it is, and the check below says so.
      }
      area.value = text;
      check();
    });
  }
}

/** A page answering a POST with a secret: reloading it asks the list again (GET) instead of sending the form again. */
function forgetPost(): void {
  if (document.querySelector('[data-forget-post]')) history.replaceState(null, '', location.pathname);
}

counters();
abiForms();
forgetPost();
