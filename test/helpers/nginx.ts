// The shipped reverse proxy (deploy/nginx.conf) run by Debian nginx for tests: its listen port,
// upstream servers, pid, logs and temporary directories moved under a test's own directory, on a
// free port, as the current user; stopped in the test's teardown.
import type { Test } from 'tap';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/net/local.js';
import { tmpDir } from './tmp.js';

export const SHIPPED_NGINX_CONF = fileURLToPath(new URL('../../../deploy/nginx.conf', import.meta.url));

/** The nginx binary, or null (its tests then skip, saying so). */
export function nginxBinary(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    const p = path.join(dir, 'nginx');
    if (dir && fs.existsSync(p)) return p;
  }
  return null;
}

export interface Upstreams {
  /** Ports of the API replicas on 127.0.0.1 (they replace `server api:4000`). */
  api: number[];
  /** Port of the web UI on 127.0.0.1 (it replaces `server ui:3000`); default: the first API port. */
  ui?: number;
}

/** deploy/nginx.conf with its port, upstream servers, pid, logs and temporary directories under `dir`. */
export function testConfig(shipped: string, dir: string, listen: number, up: Upstreams): string {
  const replace = (s: string, re: RegExp, by: string) => {
    if (!re.test(s)) throw new Error(`deploy/nginx.conf no longer has ${re}`);
    return s.replace(re, by);
  };
  let c = shipped;
  c = replace(c, /listen 80;/, `listen 127.0.0.1:${listen};`);
  c = replace(c, /server api:4000( [^;]*)?;/, up.api.map((p) => `server 127.0.0.1:${p}$1;`).join('\n    '));
  c = replace(c, /server ui:3000( [^;]*)?;/, `server 127.0.0.1:${up.ui ?? up.api[0]}$1;`);
  c = replace(c, /^pid [^;]+;/m, `pid ${dir}/nginx.pid;`);
  c = replace(c, /access_log [^;]+;/, `access_log ${dir}/access.log;`);
  c = replace(c, /error_log [^;]+;/, `error_log ${dir}/error.log;`);
  c = replace(c, /proxy_cache_path \S+/, `proxy_cache_path ${dir}/api-cache`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${dir}/${k};`).join('\n');
  return replace(c, /^http \{$/m, `http {\n${temp}`);
}

/** `nginx -t` of a configuration file: exit status and what it printed. */
export function nginxTest(nginx: string, dir: string, conf: string): { status: number | null; output: string } {
  const r = spawnSync(nginx, ['-t', '-p', dir, '-c', conf, '-e', path.join(dir, 'error.log'), '-g', `error_log ${dir}/error.log;`], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Starts nginx with the shipped configuration in front of `up`; resolves with its port once it accepts connections. */
export async function startNginx(t: Test, nginx: string, up: Upstreams): Promise<{ port: number; dir: string; accessLog(): string }> {
  const dir = tmpDir(t, 'explorer-nginx-');
  // Run as root, nginx's workers are `nobody`: they must reach their temporary directories in here.
  fs.chmodSync(dir, 0o711);
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, testConfig(fs.readFileSync(SHIPPED_NGINX_CONF, 'utf8'), dir, port, up));
  const check = nginxTest(nginx, dir, conf);
  if (check.status !== 0) throw new Error(`nginx -t refuses the configuration: ${check.output}`);
  const proc: ChildProcess = spawn(nginx, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  t.teardown(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    // unref: once nginx is gone, the 5 s timer must not keep this test's process alive.
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), r(true)));
      s.on('error', () => r(false));
    });
    if (up) break;
    if (i > 200 || proc.exitCode !== null) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, dir, accessLog: () => fs.readFileSync(path.join(dir, 'access.log'), 'utf8') };
}
