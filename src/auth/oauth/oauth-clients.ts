import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ClientMetadataAddressRefused, type ClientMetadataPort } from '../../../kernel/ports/client-metadata.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../../kernel/ports/store.port.js';
import { nameSchema } from '../../../kernel/shared/name.schema.js';
import { issueMessages } from '../../../kernel/errors/validation-messages.js';
import { OAuthProtocolError } from './oauth-errors.js';
import { redirectUriProblem } from './redirect-uri.js';

/** A client the authorization server knows: by its metadata document or its registration. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  clientUri?: string;
  redirectUris: string[];
  /** `metadata-document`: the client id is the URL of its metadata; `registered`: dynamic registration. */
  kind: 'metadata-document' | 'registered';
}

const CLIENTS_COLLECTION = 'oauth_clients';
export const OAUTH_CLIENT_COLLECTIONS: CollectionSpec[] = [{ name: CLIENTS_COLLECTION, indexes: [] }];

const REGISTERED_ID = /^dcr_[A-Za-z0-9_-]{22}$/;
/** A registration or document lists a handful of redirect URIs; more is a sign of abuse. */
const MAX_REDIRECT_URIS = 10;
/** How long a fetched metadata document answers for its URL (and how many are kept). */
const DOCUMENT_CACHE_MS = 5 * 60_000;
const MAX_CACHED_DOCUMENTS = 1_000;

const redirectUriSchema = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = redirectUriProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * What either kind of client says about itself (RFC 7591 §2, and the metadata document's
 * fields, which are the same names). Only public clients: no secret is issued or accepted,
 * PKCE is what proves the client at the token endpoint.
 */
export const clientMetadataSchema = z.object({
  client_name: nameSchema(100),
  client_uri: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  redirect_uris: z.array(redirectUriSchema).min(1).max(MAX_REDIRECT_URIS),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  scope: z.string().max(1000).optional(),
});

type StoredClient = Omit<OAuthClient, 'kind'> & { createdAt: number };

export interface OAuthClientsOptions {
  /** Accept `http://127.0.0.1`, `http://[::1]` and `http://localhost` metadata URLs (local development and tests). */
  allowLoopbackClientIds: boolean;
}

/**
 * The clients of the authorization server. A client id that is an https URL is a Client ID
 * Metadata Document: fetched (deadline and size cap in the adapter), checked and cached; the
 * preferred way, since nothing is stored for it. Older clients register dynamically
 * (RFC 7591) and get a `dcr_` id whose registration is a stored record.
 */
export class OAuthClients {
  private readonly documents = new Map<string, { client: Promise<OAuthClient | undefined>; until: number }>();

  constructor(
    private readonly store: StorePort,
    private readonly fetcher: ClientMetadataPort,
    private readonly clock: ClockPort,
    private readonly options: OAuthClientsOptions,
  ) {}

  /** RFC 7591 registration of a public client: the client information response. */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const parsed = clientMetadataSchema.safeParse(body);
    if (!parsed.success) {
      const redirect = parsed.error.issues.some((issue) => issue.path[0] === 'redirect_uris');
      throw new OAuthProtocolError(
        redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata',
        issueMessages(parsed.error.issues).join('; '),
      );
    }
    const metadata = parsed.data;
    this.checkFlows(metadata, 'invalid_client_metadata');
    const clientId = `dcr_${randomBytes(16).toString('base64url')}`;
    const now = this.clock.now();
    const stored: StoredClient = {
      clientId,
      clientName: metadata.client_name,
      ...(metadata.client_uri ? { clientUri: metadata.client_uri } : {}),
      redirectUris: metadata.redirect_uris,
      createdAt: now,
    };
    await this.store.put(CLIENTS_COLLECTION, clientId, { data: stored, expectedVersion: 0 });
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      client_name: stored.clientName,
      ...(stored.clientUri ? { client_uri: stored.clientUri } : {}),
      redirect_uris: stored.redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /**
   * The client of `clientId`, or undefined when there is none (unknown, or its document cannot
   * be had or is invalid). Throws `OAuthProtocolError` (`invalid_client`) when the document's
   * host is an internal address, which its author can fix and should be told about.
   */
  async resolve(clientId: string): Promise<OAuthClient | undefined> {
    if (REGISTERED_ID.test(clientId)) {
      const doc = await this.store.get<StoredClient>(CLIENTS_COLLECTION, clientId);
      if (!doc) return undefined;
      const { createdAt: _createdAt, ...client } = doc.data;
      return { ...client, kind: 'registered' };
    }
    if (!this.isMetadataUrl(clientId)) return undefined;
    const now = this.clock.now();
    const hit = this.documents.get(clientId);
    if (hit && hit.until > now) return hit.client;
    if (this.documents.size >= MAX_CACHED_DOCUMENTS) this.documents.clear();
    const client = this.fetchClient(clientId);
    this.documents.set(clientId, { client, until: now + DOCUMENT_CACHE_MS });
    // A failure is not kept: the client may fix its document and try again at once.
    const forget = () => {
      if (this.documents.get(clientId)?.client === client) this.documents.delete(clientId);
    };
    client.then((found) => found || forget(), forget);
    return client;
  }

  private async fetchClient(url: string): Promise<OAuthClient | undefined> {
    let document: unknown;
    try {
      document = await this.fetcher.fetchDocument(url);
    } catch (error) {
      if (error instanceof ClientMetadataAddressRefused)
        throw new OAuthProtocolError(
          'invalid_client',
          `client_id's host ${error.host} resolves to ${error.address}, a ${error.addressClass} address: metadata documents are fetched from public addresses only`,
        );
      return undefined;
    }
    const parsed = clientMetadataSchema.extend({ client_id: z.string() }).safeParse(document);
    // The document must name itself: a document copied to another URL is another client's.
    if (!parsed.success || parsed.data.client_id !== url) return undefined;
    try {
      this.checkFlows(parsed.data, 'invalid_client');
    } catch {
      return undefined;
    }
    return {
      clientId: url,
      clientName: parsed.data.client_name,
      ...(parsed.data.client_uri ? { clientUri: parsed.data.client_uri } : {}),
      redirectUris: parsed.data.redirect_uris,
      kind: 'metadata-document',
    };
  }

  /** A metadata document URL: https with a path (or a loopback http one where allowed), no fragment, credentials or dot segments. */
  private isMetadataUrl(value: string): boolean {
    if (value.length > 2048) return false;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    if (url.hash !== '' || url.username !== '' || url.password !== '' || url.pathname === '/') return false;
    // `new URL` resolves dot segments: a URL it changed is not the one the client named.
    if (url.href !== value) return false;
    if (url.protocol === 'https:') return true;
    const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
    return url.protocol === 'http:' && loopback && this.options.allowLoopbackClientIds;
  }

  /** Public clients of the code flow only: no secret-based authentication, no implicit or password grants. */
  private checkFlows(metadata: z.infer<typeof clientMetadataSchema>, code: 'invalid_client_metadata' | 'invalid_client'): void {
    const method = metadata.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none')
      throw new OAuthProtocolError(code, 'token_endpoint_auth_method must be none: clients are public and prove themselves with PKCE');
    const grants = metadata.grant_types ?? ['authorization_code'];
    if (grants.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token'))
      throw new OAuthProtocolError(code, 'grant_types may hold authorization_code and refresh_token only');
    if ((metadata.response_types ?? ['code']).some((type) => type !== 'code'))
      throw new OAuthProtocolError(code, 'response_types may hold code only');
  }
}
