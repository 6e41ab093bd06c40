// A small structured logger: one line per event, "time level [scope] message key=value ...", or
// with LOG_FORMAT=json one JSON object per line ({time, level, scope, msg, ...fields}) for log
// collectors.
import { LOG_FORMATS, LOG_LEVELS } from './config/settings.js';

export type LogLevel = (typeof LOG_LEVELS)[number];
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold: number = ORDER[(process.env.LOG_LEVEL as LogLevel) ?? 'info'] ?? ORDER.info;

export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
}

export type LogFormat = (typeof LOG_FORMATS)[number];
let format: LogFormat = process.env.LOG_FORMAT === 'json' ? 'json' : 'text';

export function setLogFormat(f: LogFormat): void {
  format = f;
}

/** A field's value in a JSON line: what JSON cannot hold (bigint, Error) as a string. */
function jsonField(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Error) return v.message;
  return v;
}

function jsonLine(level: LogLevel, scope: string, msg: string, fields?: Record<string, unknown>): string {
  const out: Record<string, unknown> = { time: new Date().toISOString(), level, scope, msg };
  // A field never overwrites the line's own keys.
  if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined && !(k in out)) out[k] = jsonField(v);
  try {
    return JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    // A cycle in a field: the line is still written, without the fields.
    return JSON.stringify({ time: out.time, level, scope, msg });
  }
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

function fmt(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(v.message);
  if (typeof v === 'string') return /^[\w.:/@-]*$/.test(v) && v !== '' ? v : JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v);
}

export function createLogger(scope: string): Logger {
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < threshold) return;
    let line: string;
    if (format === 'json') line = jsonLine(level, scope, msg, fields);
    else {
      line = `${new Date().toISOString()} ${level.padEnd(5)} [${scope}] ${msg}`;
      if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) line += ` ${k}=${fmt(v)}`;
    }
    (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (s) => createLogger(`${scope}:${s}`),
  };
}
