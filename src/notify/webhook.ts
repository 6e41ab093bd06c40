// One webhook delivery: a JSON POST signed with HMAC-SHA256 of the raw body
// (X-Service-Signature, lower-case hex), an event id header for deduplication, a 10 s timeout,
// any 2xx is success, redirects are not followed. https only unless the operator allows plain
// http; hosts that are, or resolve to, loopback/private/link-local/metadata addresses are refused
// unless the operator allows them, and the check is made on the address actually connected to
// (a lookup hook), so DNS rebinding cannot slip past it.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import crypto from 'node:crypto';
import { guardedLookup, isPrivateAddress, privateHostOf } from '../net/private-address.js';

export interface WebhookPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs: number;
  /** Extra CA certificates (PEM) to trust, e.g. an operator's internal CA or a test's. */
  ca?: string | Buffer;
}

export const DEFAULT_POLICY: WebhookPolicy = { allowHttp: false, allowPrivate: false, timeoutMs: 10_000 };

export interface DeliveryResult {
  ok: boolean;
  status?: number;
  error?: string;
  /** False when retrying cannot help (URL refused by policy). */
  retryable: boolean;
}

export function sign(body: string | Buffer, secret: string): string {
  return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

/** Why a webhook URL is not acceptable under the policy (checked when it is set), or null. */
export async function checkWebhookUrl(raw: string, policy: WebhookPolicy): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the webhook URL is not a valid URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return policy.allowHttp ? 'the webhook URL must use https or http' : 'the webhook URL must use https';
  }
  if (url.username || url.password) return 'the webhook URL must not carry credentials';
  if (policy.allowPrivate) return null;
  try {
    const bad = await privateHostOf(url);
    if (!bad) return null;
    return bad.resolved ? `the webhook host ${bad.host} resolves to a private address (${bad.address})` : `the webhook host ${bad.host} is a private address`;
  } catch {
    return null; // may resolve later; delivery checks again at connect time
  }
}

export async function postWebhook(
  rawUrl: string,
  body: string,
  secret: string,
  eventId: string,
  policy: WebhookPolicy = DEFAULT_POLICY,
): Promise<DeliveryResult> {
  const refused = await checkWebhookUrl(rawUrl, { ...policy, allowPrivate: true });
  if (refused) return { ok: false, error: refused, retryable: false };
  const url = new URL(rawUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate && net.isIP(host) && isPrivateAddress(host)) {
    return { ok: false, error: `refused: ${host} is a private address`, retryable: false };
  }
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<DeliveryResult>((resolve) => {
    let done = false;
    const finish = (r: DeliveryResult) => {
      if (!done) {
        done = true;
        resolve(r);
      }
    };
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'evm-explorer-webhooks/1',
          'x-service-signature': sign(body, secret),
          'x-service-event-id': eventId,
        },
        lookup: guardedLookup(policy.allowPrivate),
        timeout: policy.timeoutMs,
        ...(url.protocol === 'https:' && policy.ca ? { ca: policy.ca } : {}),
        agent: false,
      },
      (res) => {
        res.resume(); // the body is not needed; read it so the socket is released
        const status = res.statusCode ?? 0;
        res.on('end', () => {
          if (status >= 200 && status < 300) finish({ ok: true, status, retryable: false });
          else if (status >= 300 && status < 400) finish({ ok: false, status, error: `redirect (${status}) not followed`, retryable: true });
          else finish({ ok: false, status, error: `HTTP ${status}`, retryable: true });
        });
        res.on('error', (e) => finish({ ok: false, status, error: e.message, retryable: true }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${policy.timeoutMs} ms`));
    }, policy.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${policy.timeoutMs} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) =>
      finish({ ok: false, error: e.message, retryable: e.code !== 'EPRIVATE' }),
    );
    req.end(body);
  });
}
