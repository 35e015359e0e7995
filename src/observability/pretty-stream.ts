/**
 * A small human-readable formatter for pino's JSON lines, so local development needs no
 * extra package (pino-pretty is not a dependency). Redaction has already happened when a
 * line reaches it.
 */
import type { DestinationStream } from 'pino';

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields already shown in the line prefix, or too noisy for a terminal. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name']);

/** Formats one pino JSON line as `HH:MM:SS.mmm LEVEL msg key=value ...`. */
export function formatPrettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const time = typeof record.time === 'string' ? record.time.slice(11, 23) : '';
  const level = typeof record.level === 'number' ? (LEVEL_NAMES[record.level] ?? String(record.level)) : 'INFO';
  const msg = typeof record.msg === 'string' ? record.msg : '';
  const fields = Object.entries(record)
    .filter(([k]) => !OMITTED.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const stack =
    typeof record.err === 'object' && record.err !== null && typeof (record.err as { stack?: unknown }).stack === 'string'
      ? `\n${(record.err as { stack: string }).stack}`
      : '';
  return `${time} ${level.padEnd(5)} ${msg}${fields.length > 0 ? ` ${fields.join(' ')}` : ''}${stack}\n`;
}

/** Wraps a writable (stdout) so pino's lines come out formatted. */
export function createPrettyStream(out: { write(chunk: string): unknown }): DestinationStream {
  return {
    write(chunk: string): void {
      // pino writes one complete line per call.
      out.write(formatPrettyLine(chunk));
    },
  };
}
