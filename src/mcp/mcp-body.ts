/**
 * Reads an MCP request body ourselves (no express body parser on the fast path), with the
 * 1 MiB cap of limits. An oversize body is reported as soon as it is known, and the
 * rest is read and discarded so the client can finish sending and read our 400 on a
 * connection that stays usable; past a drain limit the connection is cut instead.
 */
import type { IncomingMessage } from 'node:http';

/** MCP bodies over 1 MiB → 400 `Request entity too large`. */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

/** How much of an oversize body we swallow before cutting the connection. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

export type BodyOutcome =
  | { kind: 'ok'; body: Buffer }
  | { kind: 'too-large' }
  /** The client went away; there is nobody to answer. */
  | { kind: 'aborted' };

/** Collects the body of `req`, up to `maxBytes`. Never rejects. */
export function readBody(req: IncomingMessage, maxBytes = MCP_MAX_BODY_BYTES): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    let tooLarge = Number.isFinite(declared) && declared > maxBytes;
    let received = 0;
    let chunks: Buffer[] = [];
    let settled = false;
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    if (tooLarge) {
      settle({ kind: 'too-large' });
      if (declared > DRAIN_LIMIT_BYTES) {
        // Not worth reading: answer and close (the caller's response sets `Connection: close`).
        req.resume();
        return;
      }
    }
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > DRAIN_LIMIT_BYTES) {
        req.socket.destroy();
        return;
      }
      if (tooLarge) return;
      if (received > maxBytes) {
        tooLarge = true;
        chunks = [];
        settle({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle({ kind: 'ok', body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) settle({ kind: 'aborted' });
    });
  });
}

/** True when the response to an oversize body should close the connection (see `readBody`). */
export function shouldCloseAfterTooLarge(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > DRAIN_LIMIT_BYTES;
}
