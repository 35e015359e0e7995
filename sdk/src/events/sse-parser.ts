/**
 * A parser of `text/event-stream` (WHATWG HTML, "Server-sent events"): fed chunks of text as
 * they arrive, it emits one message per blank line. Comments (`:` lines, the service's
 * keep-alives) are dropped; `retry:` is reported.
 */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;

  constructor(
    private readonly onMessage: (message: SseMessage) => void,
    private readonly onRetry: (ms: number) => void = () => undefined,
  ) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let end = this.lineEnd();
    while (end >= 0) {
      const line = this.buffer.slice(0, end);
      // CRLF counts as one line end; a CR at the very end of a chunk waits for what follows.
      const width = this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1;
      this.buffer = this.buffer.slice(end + width);
      this.line(line);
      end = this.lineEnd();
    }
  }

  private lineEnd(): number {
    const lf = this.buffer.indexOf('\n');
    const cr = this.buffer.indexOf('\r');
    if (cr >= 0 && cr === this.buffer.length - 1) return lf >= 0 && lf < cr ? lf : -1;
    if (cr < 0) return lf;
    return lf < 0 ? cr : Math.min(cr, lf);
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.onRetry(Number(value));
  }

  private dispatch(): void {
    if (this.data.length > 0) this.onMessage({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
    this.data = [];
    this.event = '';
  }
}
