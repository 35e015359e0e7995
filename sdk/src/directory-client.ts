/**
 * The public agent directory (the public onboarding and directory routes, public directory and agent cards): no
 * credential. Its answers carry an `ETag`; the client keeps the last body per address and
 * asks again with `If-None-Match`, so an unchanged answer costs a 304 and no body, and the
 * kept body is returned as it was.
 */
import { type CallOptions, queryString, seg } from './call-options.js';
import type { AgentSnapshot, DirectoryCard, DirectoryPage } from './generated/tools.js';
import { HttpTransport, type RetryObserver } from './http-transport.js';
import { resolveRuntime, type SdkRuntimeOptions } from './runtime.js';

export interface DirectoryClientOptions extends SdkRuntimeOptions {
  /** Where the service is reached, e.g. `https://agents.example.com`. */
  baseUrl: string;
  /** Answers kept for `If-None-Match` (default 100, least recently used dropped first; 0 keeps none). */
  cacheEntries?: number;
  onRetry?: RetryObserver;
}

/** A page of the directory: `q` searches names (word prefixes) and descriptions (whole words); every word must match. */
export interface DirectoryPageQuery {
  /** 1-200, default 50. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  q?: string;
}

export type FeedQuery = Omit<DirectoryPageQuery, 'q'>;

const PREFIX = '/api/public/erc8004';

export class DirectoryClient {
  private readonly http: HttpTransport;
  private readonly cacheEntries: number;
  /** Path → the last answer's ETag and body; a Map keeps insertion order, so the first entry is the least recently used. */
  private readonly cache = new Map<string, { etag: string; body: unknown }>();

  constructor(options: DirectoryClientOptions) {
    this.http = new HttpTransport(options.baseUrl.replace(/\/+$/, ''), resolveRuntime(options));
    this.http.onRetry = options.onRetry;
    this.cacheEntries = Math.max(0, options.cacheEntries ?? 100);
  }

  /** Published cards, newest first; with `q`, those matching every word. */
  page(query: DirectoryPageQuery = {}, options?: CallOptions): Promise<DirectoryPage> {
    return this.get(`${PREFIX}/agents/page${queryString({ ...query })}`, options);
  }

  /** A published card; `unknown_error` 404 `Agent not found` when it is unpublished, revoked or its agent paused. */
  card(publicId: string, options?: CallOptions): Promise<DirectoryCard> {
    return this.get(`${PREFIX}/agents/${seg(publicId)}`, options);
  }

  /** The portfolio snapshot of a card published with `snapshot: true` (404 otherwise). */
  snapshot(publicId: string, options?: CallOptions): Promise<AgentSnapshot> {
    return this.get(`${PREFIX}/agents/${seg(publicId)}/snapshot`, options);
  }

  /** Verified published agents (ERC-8004 identity proven on chain), newest first. */
  feed(query: FeedQuery = {}, options?: CallOptions): Promise<DirectoryPage> {
    return this.get(`${PREFIX}/discovery/feed${queryString({ ...query })}`, options);
  }

  private async get<T>(path: string, options: CallOptions = {}): Promise<T> {
    const kept = this.cache.get(path);
    const answer = await this.http.send({
      method: 'GET',
      path,
      conditional: kept !== undefined,
      headers: (): Record<string, string> => (kept ? { 'if-none-match': kept.etag } : {}),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxAttempts: options.maxAttempts,
    });
    this.cache.delete(path);
    if (answer.status === 304 && kept) {
      this.cache.set(path, kept);
      return kept.body as T;
    }
    const etag = answer.headers.get('etag');
    if (etag && this.cacheEntries > 0) {
      this.cache.set(path, { etag, body: answer.body });
      if (this.cache.size > this.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    }
    return answer.body as T;
  }
}
