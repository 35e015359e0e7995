import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ClientMetadataAddressRefused, type ClientMetadataPort } from '../../kernel/ports/client-metadata.port.js';
import { internalAddressClass } from './internal-address.js';

export interface ClientMetadataHttpOptions {
  /** The whole exchange, headers and body, must finish within this. */
  timeoutMs: number;
  /** A larger document is refused (a metadata document is a few hundred bytes). */
  maxBytes: number;
  /** Loopback addresses may be connected to (`OAUTH_LOOPBACK_CLIENT_IDS`: a developer's machine, tests). */
  allowLoopback: boolean;
  /** The resolver asked for every address of a host: the system's, unless a test plays a hostile DNS server. */
  resolve?: typeof dnsLookup;
}

/**
 * Fetches Client ID Metadata Documents over HTTP with a deadline and a size cap, and follows
 * no redirect: the document must be at the URL that is the client's id. The client id is
 * chosen by whoever sends a browser to the authorization page, so the fetch must not become
 * a way into the service's own network: every address the host resolves to is checked inside
 * the connection's own lookup, and the socket connects only to an address that passed. A
 * separate resolve-then-fetch would leave a window for DNS rebinding (a second answer, this
 * time internal, to the fetch's own lookup).
 */
export class ClientMetadataHttpAdapter implements ClientMetadataPort {
  private readonly lookup: LookupFunction;

  constructor(private readonly options: ClientMetadataHttpOptions) {
    this.lookup = checkedLookup(options.allowLoopback, options.resolve ?? dnsLookup);
  }

  async fetchDocument(url: string): Promise<unknown> {
    const target = new URL(url);
    // An address literal is connected to without any lookup: it is checked here instead.
    const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal)) {
      const refused = refusedClass(literal, this.options.allowLoopback);
      if (refused) throw new ClientMetadataAddressRefused(target.hostname, literal, refused);
    }
    const response = await this.get(target);
    if (response.statusCode !== 200) {
      response.destroy();
      throw new Error(`client metadata document answered ${response.statusCode}`);
    }
    const declared = Number(response.headers['content-length'] ?? 0);
    if (declared > this.options.maxBytes) {
      response.destroy();
      throw new Error('client metadata document too large');
    }
    return JSON.parse(await this.readCapped(response));
  }

  /** One GET on a connection of its own (no pooled socket whose address was checked for another host). */
  private get(target: URL): Promise<IncomingMessage> {
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = request(target, {
        method: 'GET',
        headers: { accept: 'application/json' },
        agent: false,
        lookup: this.lookup,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      outgoing.once('response', resolve);
      outgoing.once('error', reject);
      outgoing.end();
    });
  }

  /** The body as text, refused once it passes the cap (a missing or false Content-Length is no bound). */
  private async readCapped(response: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > this.options.maxBytes) {
        response.destroy();
        throw new Error('client metadata document too large');
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

function refusedClass(address: string, allowLoopback: boolean): string | undefined {
  const kind = internalAddressClass(address);
  return kind === 'loopback' && allowLoopback ? undefined : kind;
}

/**
 * A lookup for `net.connect` that resolves every address of the host and fails when any is
 * internal: a host that names an internal address beside public ones is refused whole, so
 * happy-eyeballs connecting (which tries each address in turn) can only reach checked ones.
 */
function checkedLookup(allowLoopback: boolean, resolve: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const refused = refusedClass(address, allowLoopback);
        if (refused) return callback(new ClientMetadataAddressRefused(hostname, address, refused), '', 0);
      }
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      // `net` asks for every address when it may try several, else for one.
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}
