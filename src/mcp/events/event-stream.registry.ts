/**
 * Every MCP event stream of this process: the one entry point both transports use to open
 * a stream, the open-stream count for metrics, and the shutdown that ends them all.
 */
import { AppError } from '../../errors/app-error.js';
import { EventStream, type EventStreamDeps } from './event-stream.js';

export class EventStreamRegistry {
  private readonly streams = new Set<EventStream>();
  private shuttingDown = false;

  constructor(private readonly deps: EventStreamDeps) {}

  /**
   * Checks the credential for `/mcp/:publicId` and returns a stream ready to `start`.
   * Throws the resolver's AppError (401, 404 `Agent not found`) with nothing left open.
   */
  async open(publicId: string, authorization: string | undefined): Promise<EventStream> {
    if (this.shuttingDown) throw new AppError('SHUTTING_DOWN', 'Service Unavailable', { envelope: 'standard' });
    const stream = new EventStream(this.deps, publicId, authorization, (closed) => this.streams.delete(closed));
    this.streams.add(stream);
    try {
      await stream.authorize();
      return stream;
    } catch (error) {
      await stream.close('disconnected');
      throw error;
    }
  }

  /** Streams open now, counting those still being authorized (gauge source). */
  openStreams(): number {
    return this.streams.size;
  }

  /** Ends every stream with `shutdown` and refuses new ones; resolves once unsubscribed from the bus. */
  async closeAll(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.streams].map((stream) => stream.close('shutdown')));
  }
}
