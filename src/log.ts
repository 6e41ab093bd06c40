// A small structured logger: one line per event, "time level [scope] message key=value ...".
import { LOG_LEVELS } from './config/settings.js';

export type LogLevel = (typeof LOG_LEVELS)[number];
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold: number = ORDER[(process.env.LOG_LEVEL as LogLevel) ?? 'info'] ?? ORDER.info;

export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
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
    let line = `${new Date().toISOString()} ${level.padEnd(5)} [${scope}] ${msg}`;
    if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) line += ` ${k}=${fmt(v)}`;
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
