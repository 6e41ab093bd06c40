// The public-name form's "Sign with the owner's wallet" (#19): with a browser wallet (EIP-1193,
// window.ethereum), ask the UI server for the exact text to sign for the form's address and name
// (the Account API's GET /user/public-names/message), have the wallet sign it (personal_sign) and
// put the signature in the form's signature field. Without JavaScript or a wallet the button stays
// hidden and a signature made elsewhere is pasted into that field.

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

function utf8Hex(text: string): string {
  return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function setupOwnerSign(form: HTMLFormElement): void {
  const button = form.querySelector<HTMLButtonElement>('[data-owner-sign]');
  const status = form.querySelector<HTMLElement>('[data-owner-sign-status]');
  const error = form.querySelector<HTMLElement>('[data-owner-sign-error]');
  const field = form.querySelector<HTMLInputElement>('input[name="signature"]');
  const eth = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  if (!button || !status || !error || !field || !eth) return;
  button.hidden = false;
  const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value.trim() ?? '';
  const fail = (m: string) => {
    error.textContent = m;
    error.hidden = false;
    status.textContent = '';
    button.disabled = false;
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    error.hidden = true;
    status.textContent = 'Asking the wallet…';
    try {
      const r = await fetch('/account/public-names/message', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ csrf: value('csrf'), address_hash: value('address_hash'), name: value('name') }),
      });
      let json: { message?: unknown } = {};
      try {
        json = (await r.json()) as { message?: unknown };
      } catch {
        // not JSON: said below
      }
      if (!r.ok || typeof json.message !== 'string') return fail(typeof json.message === 'string' ? json.message : 'The message to sign could not be made.');
      const message = json.message;
      const accounts = (await eth.request({ method: 'eth_requestAccounts' })) as string[];
      const account = accounts?.[0];
      if (!account) return fail('The wallet gave no account.');
      const signature = (await eth.request({ method: 'personal_sign', params: [utf8Hex(message), account] })) as string;
      if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return fail('The wallet did not give a signature.');
      field.value = signature;
      status.textContent = `Signed by ${account}: the signature is in the field below. Changing the address or name needs a new signature.`;
      button.disabled = false;
    } catch (e) {
      fail(e instanceof Error ? e.message : 'The wallet refused.');
    }
  });
}

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-public-name-form]')) setupOwnerSign(form);
