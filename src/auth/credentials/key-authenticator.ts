import { timingSafeEqual } from 'node:crypto';
import { keyStatus, type ApiKeyContext } from '../../../machines/api-key.machine.js';
import type { KeyScope } from '../../../kernel/vocabulary/scopes.js';
import type { BotContext } from '../../../machines/bot.machine.js';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ActorCollection } from '../../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { EventBusPort } from '../../../kernel/ports/event-bus.port.js';
import { AUTH_STREAM } from '../../../machines/auth-stream.js';
import { hashKeySecret, looksLikeKey } from './api-key-format.js';

/** Who calls with an API key: the agent (or legacy bot) the key operates, and its scope. */
export interface KeyPrincipal {
  type: 'agent-key' | 'bot-key';
  keyId: string;
  scope: KeyScope;
  ownerId: string;
  prefix: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** A revocation reaches every process through the bus; this bounds staleness should the bus ever miss one. */
const CACHE_MS = 30_000;
const MAX_CACHED = 100_000;

/**
 * Resolves a bearer API key to its principal: keyed hash, index lookup, constant-time
 * comparison, status and expiry. Hot keys are served from a per-process cache that
 * revocations and expiries evict through the event bus.
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, { principal: KeyPrincipal; until: number }>();
  /**
   * Secret → keyed hash of the keys in use. The HMAC costs more than the rest of the
   * check; the secret is in this process's memory for every request anyway, and the map
   * is bounded and never persisted.
   */
  private readonly hashes = new Map<string, string>();
  private readonly hashByKeyId = new Map<string, string>();

  constructor(
    private readonly apiKeys: Pick<ActorCollection<ApiKeyContext>, 'find'>,
    private readonly bots: Pick<ActorCollection<BotContext>, 'get'>,
    /** The `api-key` purpose box the keys were hashed with when issued. */
    private readonly box: Pick<SecretBox, 'keyedHash'>,
    private readonly clock: ClockPort,
    private readonly bus: EventBusPort,
  ) {}

  async start(): Promise<void> {
    await this.bus.subscribe(AUTH_STREAM, (event) => {
      const keyId = event.data.keyId;
      // A retired key (rotation) expires earlier than its cached copy says.
      if ((event.type === 'key.revoked' || event.type === 'key.expired' || event.type === 'key.retired') && typeof keyId === 'string')
        this.evict(keyId);
    });
  }

  /** Drops a key from this process's cache at once (the revoking process does not wait for the bus). */
  evict(keyId: string): void {
    const hash = this.hashByKeyId.get(keyId);
    if (hash) this.cache.delete(hash);
    this.hashByKeyId.delete(keyId);
  }

  private hashOf(secret: string): string {
    let hash = this.hashes.get(secret);
    if (hash === undefined) {
      hash = hashKeySecret(this.box, secret);
      if (this.hashes.size >= MAX_CACHED) this.hashes.clear();
      this.hashes.set(secret, hash);
    }
    return hash;
  }

  /**
   * The principal of a key this process verified within the cache period and that is neither
   * revoked (evicted) nor expired since: `authenticate`'s answer without a promise, for the
   * MCP hot path. Undefined when not known so: `authenticate` decides (and refuses).
   */
  peek(secret: string): KeyPrincipal | undefined {
    // Only secrets of a key's shape are ever hashed, so a known one needs no pattern test.
    const hash = this.hashes.get(secret);
    const cached = hash === undefined ? undefined : this.cache.get(hash);
    if (!cached) return undefined;
    const now = this.clock.now();
    return cached.until > now && now < cached.principal.expiresAt ? cached.principal : undefined;
  }

  /** 401 `Unauthorized` for anything but an active, unexpired key. */
  async authenticate(secret: string): Promise<KeyPrincipal> {
    if (!looksLikeKey(secret)) throw AppError.unauthorized();
    const hash = this.hashOf(secret);
    const now = this.clock.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) {
      if (now < cached.principal.expiresAt) return cached.principal;
      this.evict(cached.principal.keyId);
      throw AppError.unauthorized();
    }
    const { items } = await this.apiKeys.find({ index: 'secretHash', eq: hash }, { limit: 1 });
    const view = items[0];
    if (!view) throw AppError.unauthorized();
    const { context } = view;
    if (!sameHash(context.secretHash, hash) || keyStatus(view, now) !== 'active') throw AppError.unauthorized();
    // A deleted bot's keys are revoked with it; one that escaped (created while the delete ran,
    // or a bot deleted before deletes revoked keys) must not authenticate either.
    if (context.ownerType === 'bot' && (await this.bots.get(context.ownerId))?.state !== 'active') throw AppError.unauthorized();
    const principal: KeyPrincipal = {
      type: context.ownerType === 'agent' ? 'agent-key' : 'bot-key',
      keyId: context.keyId,
      scope: context.scope,
      ownerId: context.ownerId,
      prefix: context.prefix,
      expiresAt: context.expiresAt,
    };
    if (this.cache.size >= MAX_CACHED) {
      this.cache.clear();
      this.hashByKeyId.clear();
    }
    this.cache.set(hash, { principal, until: now + CACHE_MS });
    this.hashByKeyId.set(principal.keyId, hash);
    return principal;
  }
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
