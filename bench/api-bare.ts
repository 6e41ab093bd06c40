// The ceiling of `make bench-api`: a bare uWebSockets.js server in its own process answering
// every GET with the same static body and headers (the bytes of the API's cached response, so
// both move the same bytes), corked as src/api/server.ts writes. Forked by bench/api.ts; the
// same load generator measures it and the API.
import uWS from 'uWebSockets.js';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BareServer {
  port: number;
  pid: number;
  close(): Promise<void>;
}

function serve(body: Buffer, headers: Record<string, string>): Promise<number> {
  const app = uWS.App();
  app.any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('200 OK');
      for (const [k, v] of Object.entries(headers)) res.writeHeader(k, v);
      res.end(body);
    });
  });
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (token) => {
      if (!token) reject(new Error('bare server: cannot listen'));
      else resolve(uWS.us_socket_local_port(token as unknown as uWS.us_socket));
    });
  });
}

/** Starts the bare server in a child process. */
export function forkBareServer(body: Buffer, headers: Record<string, string>): Promise<BareServer> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
    child.on('message', (m: { port?: number; error?: string }) => {
      if (m.error) reject(new Error(m.error));
      else if (m.port)
        resolve({
          port: m.port,
          pid: child.pid!,
          close: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
    });
    child.send({ body: body.toString('base64'), headers });
  });
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url && process.send) {
  process.once('message', (m: { body: string; headers: Record<string, string> }) => {
    serve(Buffer.from(m.body, 'base64'), m.headers).then(
      (port) => process.send!({ port }),
      (e: Error) => process.send!({ error: e.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
