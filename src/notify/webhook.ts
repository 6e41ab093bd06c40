// One webhook delivery: a JSON POST signed with HMAC-SHA256 of the raw body
// (X-Service-Signature, lower-case hex), an event id header for deduplication, a 10 s timeout,
// any 2xx is success, redirects are not followed. https only unless the operator allows plain
// http; hosts that are, or resolve to, loopback/private/link-local/metadata addresses are refused
// unless the operator allows them. The request goes through src/net/outbound.ts, which connects to
// the very addresses it checked (no DNS rebinding). Errors kept in the delivery log, which the
// account's owner reads, are the generic ones; the detail (addresses, DNS codes) is for the log.
import crypto from 'node:crypto';
import { checkTarget, outbound, OutboundError } from '../net/outbound.js';

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
  /** What the account's owner is shown. */
  error?: string;
  /** What the operator's log says (may name hosts, addresses, error codes). */
  detail?: string;
  /** False when retrying cannot help (URL refused by policy). */
  retryable: boolean;
}

export function sign(body: string | Buffer, secret: string): string {
  return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Why a webhook URL is not acceptable under the policy (checked when it is set), or null. A name
 * that does not resolve now is accepted: it may later, and each delivery checks again.
 */
export async function checkWebhookUrl(raw: string, policy: WebhookPolicy): Promise<OutboundError | null> {
  try {
    await checkTarget(raw, policy);
    return null;
  } catch (e) {
    if (!(e instanceof OutboundError)) throw e;
    return e.kind === 'unreachable' ? null : e;
  }
}

export async function postWebhook(
  rawUrl: string,
  body: string,
  secret: string,
  eventId: string,
  policy: WebhookPolicy = DEFAULT_POLICY,
): Promise<DeliveryResult> {
  try {
    const res = await outbound(rawUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'evm-explorer-webhooks/1',
        'x-service-signature': sign(body, secret),
        'x-service-event-id': eventId,
      },
      body,
      // The answer's body is not needed: the status says it all.
      readBody: false,
      maxBytes: 0,
      timeoutMs: policy.timeoutMs,
      maxRedirects: 0,
      allowHttp: policy.allowHttp,
      allowPrivate: policy.allowPrivate,
      ca: policy.ca,
    });
    const status = res.status;
    if (status >= 200 && status < 300) return { ok: true, status, retryable: false };
    return { ok: false, status, error: `HTTP ${status}`, retryable: true };
  } catch (e) {
    if (!(e instanceof OutboundError)) throw e;
    if (e.kind === 'redirect') return { ok: false, status: e.status, error: `redirect (${e.status}) not followed`, retryable: true };
    return { ok: false, error: e.message, detail: e.detail, retryable: e.retryable };
  }
}
