// Error bodies exactly as Blockscout's API v2 sends them (../shared/spec/blockscout-api-v2.md §1.7).
// Handlers throw these; the app turns them into replies. Anything else thrown is a bug: it is
// logged and becomes a 500 with a generic body (tests show no client input reaches that path).

export interface ValidationIssue {
  /** JSON pointer of the parameter, e.g. "/address_hash_param". */
  pointer: string;
  detail: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'object' && body && 'message' in body ? String((body as { message: unknown }).message) : `HTTP ${status}`);
  }
}

/** 422, OpenApiSpex's JSON:API-style list (`json_render_error_v2: true`). */
export class ValidationError extends ApiError {
  constructor(readonly issues: ValidationIssue[]) {
    super(422, {
      errors: issues.map((i) => ({ title: 'Invalid value', source: { pointer: i.pointer }, detail: i.detail })),
    });
  }
}

export class NotFoundError extends ApiError {
  /**
   * `cache`: 'volatile' when only a new block can make it exist (dropped with the next block);
   * 'none' when it may appear without one (a transaction entering the pending pool).
   */
  constructor(readonly cache: 'volatile' | 'none' = 'volatile') {
    super(404, NOT_FOUND_BODY);
  }
}

export const NOT_FOUND_BODY = { message: 'Not found' } as const;
export const UNKNOWN_ACTION_BODY = { message: 'Unknown API v2 action' } as const;
/** The body of an unexpected server error: says nothing about the cause. */
export const INTERNAL_ERROR_BODY = { message: 'Internal server error' } as const;
