/**
 * The "Spark" log: everything written to it passes `redact` first, so the API key (sent
 * once, in `initializationOptions`) never shows in a trace, a server log line or an
 * error. The server's stderr lines keep the level the server gave them.
 *
 * Pure at run time: VS Code types only (the channel it wraps is passed in).
 */
import type { Event, LogLevel, LogOutputChannel, ViewColumn } from 'vscode';

export const REDACTED = '[redacted]';

// `"api_key": "…"`, `apiKey=…`, `api-key: …` (any quoting), and `sk-…` style tokens.
const KEY_VALUE = /(api[_-]?key["']?\s*[:=]\s*["']?)[^"'\s,}]+/gi;
const BEARER = /(bearer\s+)[^\s"']+/gi;
const OPENAI_TOKEN = /\bsk-[A-Za-z0-9_-]{6,}/g;
/** Shorter "secrets" are not replaced: they would mangle ordinary words. */
const MIN_SECRET_LENGTH = 8;

export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) {
      out = out.split(secret).join(REDACTED);
    }
  }
  return out.replace(KEY_VALUE, `$1${REDACTED}`).replace(BEARER, `$1${REDACTED}`).replace(OPENAI_TOKEN, `sk-${REDACTED}`);
}

export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

// server/sparkls/logs.py: "%(asctime)s %(levelname)s %(name)s: %(message)s"
const SERVER_LINE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) (.*)$/;
const LEVELS: Record<string, Level> = { DEBUG: 'debug', INFO: 'info', WARNING: 'warn', ERROR: 'error', CRITICAL: 'error' };

/**
 * One line of the server's stderr: its level, and its text without the timestamp (the
 * channel adds its own). A line that is not a log record (a traceback's body) keeps the
 * level of the record before it; one before any record is an error ("No module named").
 */
export function classifyStderrLine(line: string, previous: Level | undefined): { level: Level; text: string } {
  const match = SERVER_LINE.exec(line);
  if (match) {
    return { level: LEVELS[match[1]!] ?? 'info', text: match[2]! };
  }
  return { level: previous ?? 'error', text: line };
}

function redactArg(arg: unknown, secrets: readonly string[]): unknown {
  if (typeof arg === 'string') {
    return redact(arg, secrets);
  }
  if (arg instanceof Error) {
    return redact(arg.stack ?? arg.message, secrets);
  }
  try {
    return redact(JSON.stringify(arg), secrets);
  } catch {
    return REDACTED;
  }
}

/** A LogOutputChannel that redacts every message before it reaches `inner`. */
export class RedactingLogChannel implements LogOutputChannel {
  constructor(
    private readonly inner: LogOutputChannel,
    private readonly secrets: () => readonly string[],
  ) {}

  get name(): string {
    return this.inner.name;
  }
  get logLevel(): LogLevel {
    return this.inner.logLevel;
  }
  get onDidChangeLogLevel(): Event<LogLevel> {
    return this.inner.onDidChangeLogLevel;
  }

  private clean(text: string): string {
    return redact(text, this.secrets());
  }
  private cleanArgs(args: unknown[]): unknown[] {
    const secrets = this.secrets();
    return args.map((a) => redactArg(a, secrets));
  }

  trace(message: string, ...args: unknown[]): void {
    this.inner.trace(this.clean(message), ...this.cleanArgs(args));
  }
  debug(message: string, ...args: unknown[]): void {
    this.inner.debug(this.clean(message), ...this.cleanArgs(args));
  }
  info(message: string, ...args: unknown[]): void {
    this.inner.info(this.clean(message), ...this.cleanArgs(args));
  }
  warn(message: string, ...args: unknown[]): void {
    this.inner.warn(this.clean(message), ...this.cleanArgs(args));
  }
  error(error: string | Error, ...args: unknown[]): void {
    const text = typeof error === 'string' ? error : (error.stack ?? error.message);
    this.inner.error(this.clean(text), ...this.cleanArgs(args));
  }
  log(level: Level, message: string): void {
    this[level](message);
  }

  append(value: string): void {
    this.inner.append(this.clean(value));
  }
  appendLine(value: string): void {
    this.inner.appendLine(this.clean(value));
  }
  replace(value: string): void {
    this.inner.replace(this.clean(value));
  }
  clear(): void {
    this.inner.clear();
  }
  show(preserveFocus?: boolean): void;
  show(column?: ViewColumn, preserveFocus?: boolean): void;
  show(first?: boolean | ViewColumn, preserveFocus?: boolean): void {
    if (typeof first === 'boolean' || first === undefined) {
      this.inner.show(first);
    } else {
      this.inner.show(first, preserveFocus);
    }
  }
  hide(): void {
    this.inner.hide();
  }
  dispose(): void {
    this.inner.dispose();
  }
}
