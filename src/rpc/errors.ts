// Errors of the RPC layer: one class, with what an operator needs to act on it.

export type RpcErrorKind =
  /** The node answered with a JSON-RPC error object. */
  | 'rpc'
  /** Non-2xx HTTP status. */
  | 'http'
  /** No answer within the per-request timeout. */
  | 'timeout'
  /** Connection refused/reset/dropped. */
  | 'network'
  /** The body was not valid JSON-RPC. */
  | 'parse'
  /** The response was larger than allowed. */
  | 'size';

export interface RpcErrorInit {
  method: string;
  url: string;
  kind: RpcErrorKind;
  code?: number;
  status?: number;
  message: string;
  data?: unknown;
  attempts?: number;
  cause?: unknown;
}

/**
 * A failed JSON-RPC call. `url` never carries credentials (see redactUrl). `code` is the
 * JSON-RPC error code when the node sent one; `status` the HTTP status when there was one.
 */
export class RpcError extends Error {
  override name = 'RpcError';
  readonly method: string;
  readonly url: string;
  readonly kind: RpcErrorKind;
  readonly code: number | undefined;
  readonly status: number | undefined;
  readonly data: unknown;
  readonly attempts: number;
  /** The node's own message (without the method/url prefix). */
  readonly detail: string;
  constructor(init: RpcErrorInit) {
    const where = `${init.method} at ${init.url}`;
    const what =
      init.kind === 'rpc'
        ? `JSON-RPC error ${init.code}: ${init.message}`
        : init.kind === 'http'
          ? `HTTP ${init.status}: ${init.message}`
          : init.message;
    const tries = init.attempts && init.attempts > 1 ? ` (after ${init.attempts} attempts)` : '';
    super(`${where} failed: ${what}${tries}`, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.method = init.method;
    this.url = init.url;
    this.kind = init.kind;
    this.code = init.code;
    this.status = init.status;
    this.data = init.data;
    this.attempts = init.attempts ?? 1;
    this.detail = init.message;
  }
}

const METHOD_NOT_FOUND_RE =
  /(method|function)\b.*\b(not found|does not exist|not available|not supported|is not supported|unsupported|not implemented|not whitelisted|not allowed|disabled)|unknown method|unsupported method|no such method|not implemented/i;

/**
 * True when the node does not have the method at all (-32601 or the usual wordings). A contract's
 * revert is never one, whatever its reason says ("execution reverted: function not allowed").
 */
export function isMethodNotFound(err: unknown): boolean {
  if (!(err instanceof RpcError) || err.kind !== 'rpc') return false;
  if (err.code === -32601) return true;
  return err.code !== 3 && !/revert/i.test(err.detail) && METHOD_NOT_FOUND_RE.test(err.detail);
}

const TRANSIENT_RPC_RE =
  /rate.?limit|too many requests|request limit|limit exceeded|exceeds? .*capacity|try again|temporar|timeout|timed out|busy|overloaded|header not found|unknown block|internal server error|service unavailable|bad gateway/i;

/** JSON-RPC error objects worth retrying (rate limits, lagging backends, node timeouts). */
export function isTransientRpcError(code: number | undefined, message: string): boolean {
  if (code === -32601 || code === -32602 || code === -32600 || code === -32700) return false;
  if (code === -32005 || code === 429 || code === -32029) return true;
  return TRANSIENT_RPC_RE.test(message);
}

const STATE_UNAVAILABLE_RE =
  /missing trie node|historical state|state (?:is )?(?:not available|unavailable|pruned)|state\b.*\bnot available|pruned|required state|no state (?:for|available)|state histor|state not found/i;

/**
 * True when the node refused a state read at a block because it does not keep that block's state
 * (a full node rather than an archive: geth's "missing trie node", "historical state ... is not
 * available", erigon's and nethermind's "pruned"): asking again will not help.
 */
export function isStateUnavailable(err: unknown): boolean {
  return err instanceof RpcError && err.kind === 'rpc' && STATE_UNAVAILABLE_RE.test(err.detail);
}
