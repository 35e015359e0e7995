import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import { WIDGET_MESSAGES } from './widget-messages.js';

/**
 * Widget sessions (authentication rule 10, section 8: one hour): a random bearer token handed
 * to a page of an allowed origin, kept only as its SHA-256. A session is bound to its bot
 * and its origin; the bot owner's wallet sign-in inside the widget marks it as the owner's.
 */
export const WIDGET_SESSION_COLLECTION: CollectionSpec = { name: 'widget.sessions', indexes: [] };

const WIDGET_SESSION_TTL_MS = 3600_000;
/** An expired session is kept this long more, so its token is told "expired" (start again), not "invalid". */
const EXPIRED_KEPT_MS = 3600_000;
const TOKEN_PREFIX = 'wgs_';

export interface WidgetOwner {
  chain: 'solana' | 'evm';
  address: string;
}

interface StoredSession {
  botId: string;
  origin: string;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
  owner?: WidgetOwner;
}

export interface WidgetSession extends StoredSession {
  /** The token's hash: the record's id, never the token. */
  id: string;
}

export class WidgetSessions {
  constructor(private readonly deps: { store: StorePort; clock: ClockPort }) {}

  /** A new session of `botId` for a page of `origin` (already checked against the configuration). */
  async start(botId: string, origin: string): Promise<{ sessionToken: string; expiresAt: string; session: WidgetSession }> {
    const sessionToken = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.deps.clock.now();
    const data: StoredSession = { botId, origin, createdAt: now, expiresAt: now + WIDGET_SESSION_TTL_MS };
    const id = tokenHash(sessionToken);
    await this.deps.store.put(WIDGET_SESSION_COLLECTION.name, id, {
      data,
      expectedVersion: 0,
      expiresAt: data.expiresAt + EXPIRED_KEPT_MS,
    });
    return { sessionToken, expiresAt: new Date(data.expiresAt).toISOString(), session: { id, ...data } };
  }

  /**
   * The live session of `token` on `botId`: 401 `Invalid widget session` for an unknown token
   * or another bot's, 401 `Widget session expired` (code `WIDGET_SESSION_EXPIRED`) past its hour.
   */
  async resolve(botId: string, token: string | undefined): Promise<WidgetSession> {
    if (!token?.startsWith(TOKEN_PREFIX) || token.length > 100) throw invalid();
    const id = tokenHash(token);
    const doc = await this.deps.store.get<StoredSession>(WIDGET_SESSION_COLLECTION.name, id);
    if (!doc || doc.data.botId !== botId) throw invalid();
    if (this.deps.clock.now() >= doc.data.expiresAt)
      throw new AppError('WIDGET_SESSION_EXPIRED', WIDGET_MESSAGES.sessionExpired, { retryable: false });
    return { id, ...doc.data };
  }

  /** Marks the session as the bot owner's (after their wallet proved it); the expiry stays. */
  async setOwner(id: string, owner: WidgetOwner): Promise<void> {
    await updateRecord<StoredSession>(this.deps.store, { collection: WIDGET_SESSION_COLLECTION.name, id }, (current) => {
      if (!current) throw invalid();
      return { data: { ...current.data, owner }, expiresAt: current.data.expiresAt + EXPIRED_KEPT_MS };
    });
  }
}

function invalid(): AppError {
  return AppError.unauthorized(WIDGET_MESSAGES.sessionInvalid);
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
