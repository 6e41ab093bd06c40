// Sign-In with Ethereum from the browser's wallet (EIP-1193, window.ethereum): ask for the
// account, get this instance's EIP-4361 message for it from the UI server, have the wallet sign it
// (personal_sign), and send message and signature back; the server's answer sets the session.

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

function hexUtf8(text: string): string {
  return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

async function postJson(path: string, body: unknown): Promise<{ ok: boolean; json: Record<string, unknown> }> {
  const r = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
  let json: Record<string, unknown> = {};
  try {
    json = (await r.json()) as Record<string, unknown>;
  } catch {
    // not JSON: said below
  }
  return { ok: r.ok, json };
}

function setup(box: HTMLElement): void {
  const button = box.querySelector<HTMLButtonElement>('[data-siwe]');
  const error = box.querySelector<HTMLElement>('[data-siwe-error]');
  const need = box.querySelector<HTMLElement>('[data-siwe-need]');
  const eth = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  if (!button || !error) return;
  if (!eth) {
    if (need) need.textContent = 'No browser wallet was found. Install one, or sign in with e-mail.';
    return;
  }
  if (need) need.hidden = true;
  button.hidden = false;
  const fail = (m: string) => {
    error.textContent = m;
    error.hidden = false;
    button.disabled = false;
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    error.hidden = true;
    try {
      const accounts = (await eth.request({ method: 'eth_requestAccounts' })) as string[];
      const address = accounts?.[0];
      if (!address) return fail('The wallet gave no account.');
      const m = await postJson('/account/sign-in/siwe/message', { address });
      if (!m.ok || typeof m.json.message !== 'string') return fail(String(m.json.message ?? 'The sign-in message could not be made.'));
      const message = m.json.message;
      const signature = (await eth.request({ method: 'personal_sign', params: [hexUtf8(message), address] })) as string;
      const v = await postJson('/account/sign-in/siwe', { message, signature, next: box.dataset.next ?? '/account' });
      if (!v.ok || typeof v.json.redirect !== 'string') return fail(String(v.json.message ?? 'The signature was not accepted.'));
      location.href = v.json.redirect;
    } catch (e) {
      fail(e instanceof Error ? e.message : 'The wallet refused.');
    }
  });
}

for (const box of document.querySelectorAll<HTMLElement>('[data-siwe-box]')) setup(box);
