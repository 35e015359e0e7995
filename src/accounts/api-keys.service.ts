import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  keyStatus as statusOf,
  type ApiKeyContext,
  type ApiKeyEvent,
  type ApiKeyInput,
  type KeyStatus,
} from '../../machines/api-key.machine.js';
import { SCOPES, type KeyScope } from '../../kernel/vocabulary/scopes.js';
import { KEY_PREFIX, hashKeySecret, newKeySecret } from '../auth/credentials/api-key-format.js';
import type { StepUpService } from '../auth/step-up/step-up.service.js';
import type { SecretBox } from '../../kernel/crypto/secret-box.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import { nameSchema } from '../../kernel/shared/name.schema.js';
import { countUpTo, type OwnerCaps } from './owner-caps.js';

/** Fixed by interface section 8: keys expire 90 days after creation. */
const KEY_TTL_MS = 90 * 24 * 60 * 60 * 1000;
const PREVIEW_LENGTH = 13;

/**
 * An optional step-up token. Empty (`''`) or `null` is no token: a `manage` key then gets the
 * 403 `Step-up token required for manage scope` of the auth and key errors, not a validation 400.
 */
export const stepUpTokenSchema = z.string().max(200).nullable().optional();

/** `expiresAt` and anything else unknown is refused: the system sets the expiry. */
export const createKeySchema = z.object({ name: nameSchema(), scope: z.enum(SCOPES), stepUpToken: stepUpTokenSchema }).strict();

export interface KeyOwner {
  type: 'agent' | 'bot';
  id: string;
}

/** A key's list entry. */
export interface KeySummary {
  keyId: string;
  name: string;
  prefix: string;
  maskedSecret: string;
  scope: KeyScope;
  createdAt: string;
  expiresAt: string;
  status: KeyStatus;
}

/** The creation response: the summary plus the one-time secret. */
export type CreatedKey = KeySummary & { secret: string };

/** A key made by a rotation: the new key (secret included, once) and the one it replaces. */
export type RotatedKey = CreatedKey & { replaces: string; replacedExpiresAt: string };

/** `graceSeconds` of a rotation: 0-86400 (agent control plane). */
export const MAX_ROTATION_GRACE_S = 86_400;

/**
 * Scoped API keys: each is an `api-key` actor. Only a keyed hash of the secret is
 * stored; the secret is returned once at creation. Expiry is both checked on every use
 * and scheduled as an event, so the actor's state follows without a request.
 */
export class ApiKeysService {
  constructor(
    private readonly actors: ActorCollection<ApiKeyContext, ApiKeyEvent, ApiKeyInput>,
    private readonly scheduler: SchedulerPort,
    private readonly box: SecretBox,
    private readonly stepUp: StepUpService,
    private readonly clock: ClockPort,
    private readonly caps: OwnerCaps,
    /** At most this many active keys per agent or bot (`MAX_ACTIVE_KEYS_PER_AGENT`). */
    private readonly maxActiveKeys: number,
  ) {}

  /** Hash under which a secret is stored and looked up. */
  hashSecret(secret: string): string {
    return hashKeySecret(this.box, secret);
  }

  /**
   * A new key of `owner`. 409 `Key limit reached: ...` when the owner holds `maxActiveKeys`
   * active keys already; `replaces` names a key this one replaces (a bot's token rotation
   * revokes it right after), which does not count.
   */
  async create(
    userId: string,
    owner: KeyOwner,
    input: z.infer<typeof createKeySchema>,
    /** `steppedUp`: a rotation whose caller spent a step-up token on it (only with `replaces`). */
    options: { replaces?: string; steppedUp?: boolean } = {},
  ): Promise<CreatedKey> {
    const count = (cap: number) =>
      countUpTo(
        cap,
        (cursor) => this.actors.find({ index: 'owner', eq: `${owner.type}:${owner.id}` }, { limit: 200, ...(cursor ? { cursor } : {}) }),
        // A key a rotation retired is on its way out (its grace period): it does not count either.
        (view) =>
          statusOf(view, this.clock.now()) === 'active' && view.context.retiredAt === undefined && view.context.keyId !== options.replaces,
      );
    const refusal = `Key limit reached: at most ${this.maxActiveKeys} active keys per ${owner.type}`;
    // The step-up token is spent under the cap's lock, after the count: a refused key spends none.
    return this.caps.create(`keys:${owner.type}:${owner.id}`, this.maxActiveKeys, refusal, count, () =>
      this.createUncapped(userId, owner, input, options.replaces !== undefined && options.steppedUp === true),
    );
  }

  /**
   * Key rotation (`control/mcp/keys/rotate`): per active key of `owner` (or the one named), a
   * new key of the same name and scope; the old one then expires `graceSeconds` later, at
   * once for 0 (its expiry brought forward, and a due job moves its actor to `expired`). The
   * caller has spent a step-up token on the whole rotation: a manage key asks for no other.
   * The new key is made before the old one is retired: a crash between leaves one key too
   * many, never an agent without its key.
   */
  async rotate(
    userId: string,
    owner: KeyOwner,
    /** `scopes`: without `keyId`, rotate only the active keys of these scopes (default: every scope). */
    input: { keyId?: string; graceSeconds: number; scopes?: readonly KeyScope[] },
  ): Promise<RotatedKey[]> {
    const now = this.clock.now();
    const rotating = (view: ActorView<ApiKeyContext>) => statusOf(view, now) === 'active' && view.context.retiredAt === undefined;
    const targets: ActorView<ApiKeyContext>[] = [];
    if (input.keyId !== undefined) {
      const view = await this.ownedView(owner, input.keyId);
      if (!rotating(view)) throw AppError.conflict(`Key ${input.keyId} is not active: it cannot be rotated`);
      targets.push(view);
    } else {
      let cursor: string | undefined;
      do {
        const docs = await this.actors.find(
          { index: 'owner', eq: `${owner.type}:${owner.id}` },
          { limit: 200, ...(cursor ? { cursor } : {}) },
        );
        targets.push(...docs.items.filter((view) => rotating(view) && (input.scopes?.includes(view.context.scope) ?? true)));
        cursor = docs.nextCursor;
      } while (cursor);
    }
    const expiresAt = now + input.graceSeconds * 1000;
    const rotated: RotatedKey[] = [];
    for (const old of targets) {
      const { keyId, name, scope } = old.context;
      const created = await this.create(userId, owner, { name, scope }, { replaces: keyId, steppedUp: true });
      const { view } = await this.actors.send(keyId, { type: 'key.retire', at: now, expiresAt, replacedBy: created.keyId });
      // The key's 90-day job stays; this one moves the actor to `expired` at the end of the grace.
      await this.scheduler.scheduleOnce({
        jobId: `key-retire:${keyId}`,
        address: { type: 'api-key', id: keyId },
        event: { type: 'key.expire', at: view.context.expiresAt },
        runAt: view.context.expiresAt,
      });
      rotated.push({ ...created, replaces: keyId, replacedExpiresAt: new Date(view.context.expiresAt).toISOString() });
    }
    return rotated;
  }

  private async createUncapped(
    userId: string,
    owner: KeyOwner,
    input: z.infer<typeof createKeySchema>,
    steppedUp = false,
  ): Promise<CreatedKey> {
    if (input.scope === 'manage' && !steppedUp) {
      if (!input.stepUpToken) throw AppError.forbidden('Step-up token required for manage scope'); // '' and null included
      await this.stepUp.consume({ userId, target: `${owner.type}:${owner.id}`, token: input.stepUpToken });
    }
    const secret = newKeySecret();
    const keyId = `key_${randomBytes(12).toString('base64url')}`;
    const createdAt = this.clock.now();
    const context: ApiKeyInput = {
      keyId,
      ownerType: owner.type,
      ownerId: owner.id,
      name: input.name,
      scope: input.scope,
      prefix: secret.slice(0, PREVIEW_LENGTH),
      secretHash: this.hashSecret(secret),
      createdAt,
      expiresAt: createdAt + KEY_TTL_MS,
    };
    const view = await this.actors.create(keyId, context);
    await this.scheduler.scheduleOnce({
      jobId: `key-expire:${keyId}`,
      address: { type: 'api-key', id: keyId },
      event: { type: 'key.expire', at: context.expiresAt },
      runAt: context.expiresAt,
    });
    return { ...this.summary(view), secret };
  }

  async list(owner: KeyOwner, page: { limit: number; cursor?: string }): Promise<{ items: KeySummary[]; nextCursor?: string }> {
    const docs = await this.actors.find({ index: 'owner', eq: `${owner.type}:${owner.id}` }, page);
    return {
      items: docs.items.map((view) => this.summary(view)),
      ...(docs.nextCursor ? { nextCursor: docs.nextCursor } : {}),
    };
  }

  /** Revokes at once and for good; revoking a key that is no longer active changes nothing. */
  async revoke(owner: KeyOwner, keyId: string): Promise<KeySummary> {
    await this.ownedView(owner, keyId);
    const { view } = await this.actors.send(keyId, { type: 'key.revoke', at: this.clock.now() });
    return this.summary(view);
  }

  /**
   * Revokes every active key of `owner` (a deleted bot's), each through its actor as
   * `revoke` does: `key.revoked` is published, caches drop the key and its streams end.
   */
  async revokeAll(owner: KeyOwner): Promise<void> {
    let cursor: string | undefined;
    do {
      const docs = await this.actors.find(
        { index: 'owner', eq: `${owner.type}:${owner.id}` },
        { limit: 200, ...(cursor ? { cursor } : {}) },
      );
      for (const view of docs.items) {
        if (view.state === 'active') await this.actors.send(view.context.keyId, { type: 'key.revoke', at: this.clock.now() });
      }
      cursor = docs.nextCursor;
    } while (cursor);
  }

  /** The key if it belongs to `owner`; 404 otherwise. */
  async ownedView(owner: KeyOwner, keyId: string): Promise<ActorView<ApiKeyContext>> {
    const view = await this.actors.get(keyId);
    if (!view || view.context.ownerType !== owner.type || view.context.ownerId !== owner.id) throw AppError.notFound('Key not found');
    return view;
  }

  summary(view: ActorView<ApiKeyContext>): KeySummary {
    const c = view.context;
    return {
      keyId: c.keyId,
      name: c.name,
      prefix: c.prefix,
      maskedSecret: `${c.prefix}${'*'.repeat(KEY_PREFIX.length + 43 - PREVIEW_LENGTH)}`,
      scope: c.scope,
      createdAt: new Date(c.createdAt).toISOString(),
      expiresAt: new Date(c.expiresAt).toISOString(),
      status: statusOf(view, this.clock.now()),
    };
  }
}
