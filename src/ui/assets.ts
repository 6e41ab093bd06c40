// The UI's built assets (scripts of the islands, the stylesheet), as `npm run build` wrote them
// (src/ui/build-assets.ts): names carry a content hash, so they are served as immutable; a gzipped
// copy is served to clients that accept it. Loaded once, kept in memory (a few tens of KiB).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiReply, ApiRequest } from '../api/http.js';

export interface Assets {
  /** The URL of a built asset by its source name ('app.js', 'app.css'). */
  url(name: string): string;
  serve(file: string, req: ApiRequest): ApiReply;
}

/** Where the build writes the assets: <build dir>/ui-assets, beside src/ of the compiled code. */
export function defaultAssetsDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ui-assets');
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

export function loadAssets(dir = defaultAssetsDir()): Assets {
  const manifestFile = path.join(dir, 'manifest.json');
  if (!fs.existsSync(manifestFile)) throw new Error(`the web UI's assets are not built (${manifestFile} is missing): run npm run build`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, string>;
  const files = new Map<string, { body: Buffer; gz: Buffer; type: string }>();
  for (const hashed of Object.values(manifest)) {
    const body = fs.readFileSync(path.join(dir, hashed));
    const gzFile = path.join(dir, `${hashed}.gz`);
    files.set(hashed, { body, gz: fs.existsSync(gzFile) ? fs.readFileSync(gzFile) : body, type: TYPES[path.extname(hashed)] ?? 'application/octet-stream' });
  }
  return {
    url(name) {
      const hashed = manifest[name];
      if (!hashed) throw new Error(`no built asset named ${name}`);
      return `/assets/${hashed}`;
    },
    serve(file, req) {
      const f = files.get(file);
      if (!f) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'Not found' };
      const headers: Record<string, string> = { 'content-type': f.type, 'cache-control': 'public, max-age=31536000, immutable', vary: 'Accept-Encoding' };
      const gzip = f.gz !== f.body && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
      if (gzip) headers['content-encoding'] = 'gzip';
      return { status: 200, headers, body: req.method === 'HEAD' ? '' : gzip ? f.gz : f.body };
    },
  };
}
