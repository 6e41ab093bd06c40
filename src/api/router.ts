// Routes of the public API v2: a pattern of path segments (`:name` for a parameter), the declared
// path and query parameters (src/api/params.ts), how the response may be cached, and the handler.
// Literal segments win over parameters, so /transactions/stats would never be read as a hash.
import type { CachePolicy } from '../cache/index.js';
import type { ApiContext } from './context.js';
import type { CastValue, ParamSpec } from './params.js';

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
}

export interface RouteDef {
  /** e.g. '/blocks/:block_hash_or_number_param/transactions' (relative to /api/v2). */
  pattern: string;
  path?: Readonly<Record<string, ParamSpec>>;
  query?: Readonly<Record<string, ParamSpec>>;
  handler(input: RouteInput): Promise<RouteResult>;
}

interface Compiled {
  def: RouteDef;
  segments: { literal?: string; param?: string }[];
}

export interface Match {
  def: RouteDef;
  pathValues: Record<string, string>;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export class Router {
  private readonly routes: Compiled[] = [];

  constructor(defs: readonly RouteDef[]) {
    for (const def of defs) {
      const segments = def.pattern
        .split('/')
        .filter(Boolean)
        .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
      this.routes.push({ def, segments });
    }
    // Most literal segments first: a literal beats a parameter at the same position.
    this.routes.sort((a, b) => {
      const n = Math.min(a.segments.length, b.segments.length);
      for (let i = 0; i < n; i++) {
        const al = a.segments[i].literal !== undefined;
        const bl = b.segments[i].literal !== undefined;
        if (al !== bl) return al ? -1 : 1;
      }
      return 0;
    });
  }

  /** `segments`: the path after /api/v2, split on '/', empty segments removed, still encoded. */
  match(segments: readonly string[]): Match | null {
    for (const r of this.routes) {
      if (r.segments.length !== segments.length) continue;
      const values: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length; i++) {
        const s = r.segments[i];
        if (s.literal !== undefined) {
          if (s.literal !== segments[i]) {
            ok = false;
            break;
          }
        } else {
          values[s.param!] = decodeSegment(segments[i]);
        }
      }
      if (ok) return { def: r.def, pathValues: values };
    }
    return null;
  }

  get definitions(): RouteDef[] {
    return this.routes.map((r) => r.def);
  }
}
