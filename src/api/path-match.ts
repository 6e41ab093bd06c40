// Matching a request path against route patterns ('/blocks/:id/transactions'): the one matcher of
// the public API and the Account API. A literal segment beats a parameter at the same position,
// so /transactions/stats is never read as /transactions/:hash.

export interface PathMatch<T> {
  value: T;
  /** Parameter values by name (`:id` → params.id), as the segments were given. */
  params: Record<string, string>;
}

interface Compiled<T> {
  value: T;
  segments: { literal?: string; param?: string }[];
}

/** A path's segments (after `prefix`), empty ones dropped, percent-decoded; a malformed escape stays as sent. */
export function pathSegments(path: string, prefix = ''): string[] {
  return path
    .slice(prefix.length)
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

export class PathMatcher<T> {
  private readonly routes: Compiled<T>[] = [];

  constructor(entries: readonly { pattern: string; value: T }[]) {
    for (const e of entries) {
      const segments = e.pattern
        .split('/')
        .filter(Boolean)
        .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
      this.routes.push({ value: e.value, segments });
    }
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

  match(segments: readonly string[]): PathMatch<T> | null {
    for (const r of this.routes) {
      if (r.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const s = r.segments[i];
        if (s.literal !== undefined) ok = s.literal === segments[i];
        else params[s.param!] = segments[i];
      }
      if (ok) return { value: r.value, params };
    }
    return null;
  }

  get values(): T[] {
    return this.routes.map((r) => r.value);
  }
}
