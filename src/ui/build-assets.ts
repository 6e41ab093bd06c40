// Builds the web UI's browser assets (`npm run build` runs it after tsc): each island under
// src/ui/islands bundled and minified by esbuild, the stylesheet minified, every file named by its
// content hash, a gzipped copy beside it, and manifest.json mapping source names to built names.
// Usage: node build/src/ui/build-assets.js [outDir]   (default: <build dir>/ui-assets)
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { defaultAssetsDir } from './assets.js';

/** The islands, each one script; `app` is on every page. */
export const ISLANDS = ['app', 'live', 'chart', 'wallet', 'account', 'verify', 'contract-write', 'public-name'] as const;

const here = path.dirname(fileURLToPath(import.meta.url));
/** build/src/ui → the project root. */
const ROOT = path.resolve(here, '../../..');

export async function buildAssets(outDir = defaultAssetsDir()): Promise<Record<string, { bytes: number; gzipBytes: number }>> {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const manifest: Record<string, string> = {};
  const sizes: Record<string, { bytes: number; gzipBytes: number }> = {};
  const write = (name: string, body: Uint8Array) => {
    const ext = path.extname(name);
    const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
    const hashed = `${path.basename(name, ext)}.${hash}${ext}`;
    const gz = zlib.gzipSync(body, { level: 9 });
    fs.writeFileSync(path.join(outDir, hashed), body);
    fs.writeFileSync(path.join(outDir, `${hashed}.gz`), gz);
    manifest[name] = hashed;
    sizes[name] = { bytes: body.length, gzipBytes: gz.length };
  };
  const scripts = await build({
    entryPoints: ISLANDS.map((i) => path.join(ROOT, 'src/ui/islands', `${i}.ts`)),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    write: false,
    outdir: outDir,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const f of scripts.outputFiles) write(path.basename(f.path), f.contents);
  const css = await build({
    entryPoints: [path.join(ROOT, 'src/ui/styles/app.css')],
    bundle: true,
    minify: true,
    write: false,
    outdir: outDir,
    logLevel: 'warning',
  });
  for (const f of css.outputFiles) write(path.basename(f.path), f.contents);
  fs.writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return sizes;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sizes = await buildAssets(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  for (const [name, s] of Object.entries(sizes)) console.log(`ui asset ${name}: ${s.bytes} bytes, ${s.gzipBytes} gzipped`);
}
