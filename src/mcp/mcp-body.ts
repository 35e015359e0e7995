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

/**
 * One body being read. The listeners are shared functions that find it on the request
 * (an emitter calls them with itself as `this`), not closures: five closures per request
 * were five allocations (and, under tsx, five `name` definitions) on the hot path.
 */
class BodyRead {
  received = 0;
  chunks: Buffer[] = [];
  settled = false;

  constructor(
    readonly maxBytes: number,
    public tooLarge: boolean,
    readonly resolve: (outcome: BodyOutcome) => void,
  ) {}

  settle(outcome: BodyOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(outcome);
  }
}

const READING = Symbol('mcp body read');
type ReadingRequest = IncomingMessage & { [READING]?: BodyRead };

function onData(this: ReadingRequest, chunk: Buffer): void {
  const read = this[READING]!;
  read.received += chunk.length;
  if (read.received > DRAIN_LIMIT_BYTES) {
    this.socket.destroy();
    return;
  }
  if (read.tooLarge) return;
  if (read.received > read.maxBytes) {
    read.tooLarge = true;
    read.chunks = [];
    read.settle({ kind: 'too-large' });
    return;
  }
  read.chunks.push(chunk);
}

function onEnd(this: ReadingRequest): void {
  const read = this[READING]!;
  read.settle({ kind: 'ok', body: read.chunks.length === 1 ? read.chunks[0]! : Buffer.concat(read.chunks) });
}

function onError(this: ReadingRequest): void {
  this[READING]!.settle({ kind: 'aborted' });
}

function onClose(this: ReadingRequest): void {
  if (!this.complete) this[READING]!.settle({ kind: 'aborted' });
}

/** Collects the body of `req`, up to `maxBytes`. Never rejects. */
export function readBody(req: IncomingMessage, maxBytes = MCP_MAX_BODY_BYTES): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    const read = new BodyRead(maxBytes, Number.isFinite(declared) && declared > maxBytes, resolve);
    if (read.tooLarge) {
      read.settle({ kind: 'too-large' });
      if (declared > DRAIN_LIMIT_BYTES) {
        // Not worth reading: answer and close (the caller's response sets `Connection: close`).
        req.resume();
        return;
      }
    }
    (req as ReadingRequest)[READING] = read;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** True when the response to an oversize body should close the connection (see `readBody`). */
export function shouldCloseAfterTooLarge(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > DRAIN_LIMIT_BYTES;
}
