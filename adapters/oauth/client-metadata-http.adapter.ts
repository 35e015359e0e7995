import type { ClientMetadataPort } from '../../kernel/ports/client-metadata.port.js';

export interface ClientMetadataHttpOptions {
  /** The whole exchange, headers and body, must finish within this. */
  timeoutMs: number;
  /** A larger document is refused (a metadata document is a few hundred bytes). */
  maxBytes: number;
}

/**
 * Fetches Client ID Metadata Documents over HTTP with a deadline and a size cap, and follows
 * no redirect: the document must be at the URL that is the client's id.
 */
export class ClientMetadataHttpAdapter implements ClientMetadataPort {
  constructor(private readonly options: ClientMetadataHttpOptions) {}

  async fetchDocument(url: string): Promise<unknown> {
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`client metadata document answered ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > this.options.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error('client metadata document too large');
    }
    return JSON.parse(await this.readCapped(response));
  }

  /** The body as text, refused once it passes the cap (a missing or false Content-Length is no bound). */
  private async readCapped(response: Response): Promise<string> {
    const reader = response.body?.getReader();
    if (!reader) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > this.options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error('client metadata document too large');
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}
