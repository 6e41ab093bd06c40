// Routes of the public API v2: a pattern of path segments (`:name` for a parameter), the declared
// path and query parameters (src/api/params.ts), how the response may be cached, and the handler.
// Literal segments win over parameters (src/api/path-match.ts).
import type { CachePolicy } from '../cache/response-cache.js';
import type { ApiContext } from './context.js';
import type { CastValue, ParamSpec } from './params.js';
import { PathMatcher, pathSegments } from './path-match.js';

export interface RouteInput {
  path: Record<string, CastValue>;
  query: Record<string, CastValue>;
  ctx: ApiContext;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  /** How the response may be cached (see src/cache). */
  policy: CachePolicy;
  /**
   * The block a 'stable' answer is about: edges keep it long only once it is SETTLED_DEPTH
   * blocks deep (src/api/http-caching.ts), since a reorg can still replace a newer one.
   */
  block?: bigint | number;
}

export interface RouteDef {
  /** e.g. '/blocks/:block_hash_or_number_param/transactions' (relative to /api/v2). */
  pattern: string;
  path?: Readonly<Record<string, ParamSpec>>;
  query?: Readonly<Record<string, ParamSpec>>;
  handler(input: RouteInput): Promise<RouteResult>;
}

export interface Match {
  def: RouteDef;
  pathValues: Record<string, string>;
}

/** The public API's routes on the shared path matcher (src/api/path-match.ts). */
export class Router {
  private readonly matcher: PathMatcher<RouteDef>;

  constructor(defs: readonly RouteDef[]) {
    this.matcher = new PathMatcher(defs.map((def) => ({ pattern: def.pattern, value: def })));
  }

  /** `segments`: the path after /api/v2, split on '/', empty segments removed, still encoded. */
  match(segments: readonly string[]): Match | null {
    const m = this.matcher.match(pathSegments(segments.join('/')));
    return m && { def: m.value, pathValues: m.params };
  }

  get definitions(): RouteDef[] {
    return this.matcher.values;
  }
}
