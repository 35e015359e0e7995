import { assign, emit, setup } from 'xstate';
import type { KeyScope } from '../kernel/vocabulary/scopes.js';
import { AUTH_STREAM } from './auth-stream.js';
import type { MachineDefinition } from './machine-definition.types.js';

/**
 * One OAuth grant of an MCP client to one agent, from the authorization request to its end.
 * `pending` is the authorization request waiting for the operator's consent; `approved` holds
 * a single-use authorization code; `active` holds the current access and refresh tokens.
 * Only keyed hashes of the code and tokens are stored.
 */
export interface OAuthGrantContext {
  grantId: string;
  clientId: string;
  /** As the client's registration or metadata document names it (cleaned for display). */
  clientName: string;
  clientUri?: string;
  redirectUri: string;
  /** The `state` the client sent, given back with the code or the refusal. */
  state?: string;
  /** PKCE S256 challenge of the authorization request. */
  codeChallenge: string;
  /** The scope the client asked for, if any: the consent page proposes it. */
  requestedScope?: KeyScope;
  /** The resource indicator the client sent (an agent's MCP URL), if any. */
  resource?: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms: the request is dropped unless consented to by then. */
  pendingExpiresAt: number;
  /** Set by the consent: the operator, the agent (actor id) and what it may do. */
  userId?: string;
  agentId?: string;
  publicId?: string;
  scope?: KeyScope;
  approvedAt?: number;
  codeHash?: string;
  codeExpiresAt?: number;
  /** Set by the code exchange and each refresh. */
  accessHash?: string;
  accessExpiresAt?: number;
  refreshHash?: string;
  /** Refresh tokens already spent: presenting one again is a replay. Newest last, bounded. */
  usedRefreshHashes: string[];
  /** Epoch ms the grant ends, refresh token included. */
  expiresAt?: number;
  lastUsedAt?: number;
  endedAt?: number;
  endReason?: 'denied' | 'revoked' | 'refresh_reuse' | 'code_reuse' | 'expired';
}

export type OAuthGrantInput = Omit<
  OAuthGrantContext,
  | 'userId'
  | 'agentId'
  | 'publicId'
  | 'scope'
  | 'approvedAt'
  | 'codeHash'
  | 'codeExpiresAt'
  | 'accessHash'
  | 'accessExpiresAt'
  | 'refreshHash'
  | 'usedRefreshHashes'
  | 'expiresAt'
  | 'lastUsedAt'
  | 'endedAt'
  | 'endReason'
>;

/** New access and refresh tokens (their hashes). */
interface Tokens {
  accessHash: string;
  accessExpiresAt: number;
  refreshHash: string;
}

/** Time is data: events carry the time they happen at (`at`, epoch ms). */
export type OAuthGrantEvent =
  | {
      type: 'grant.approve';
      userId: string;
      agentId: string;
      publicId: string;
      scope: KeyScope;
      codeHash: string;
      codeExpiresAt: number;
      at: number;
    }
  | { type: 'grant.deny'; at: number }
  | ({ type: 'grant.exchange'; codeHash: string; expiresAt: number; at: number } & Tokens)
  | ({ type: 'grant.refresh'; presentedHash: string; at: number } & Tokens)
  | { type: 'grant.touch'; at: number }
  | { type: 'grant.revoke'; at: number }
  | { type: 'grant.expire'; at: number };

export type OAuthGrantState = 'pending' | 'approved' | 'active' | 'denied' | 'revoked' | 'expired';

/** How many spent refresh tokens are remembered for replay detection. */
const USED_REFRESH_KEPT = 20;

/** The grant's state at `now`: `expired` as soon as its time has come, before `grant.expire` lands. */
export function grantStatus(grant: { state: unknown; context: unknown }, now: number): OAuthGrantState {
  const state = grant.state as OAuthGrantState;
  const c = grant.context as OAuthGrantContext;
  if (state === 'pending' && now >= c.pendingExpiresAt) return 'expired';
  if (state === 'approved' && now >= (c.codeExpiresAt ?? 0)) return 'expired';
  if (state === 'active' && now >= (c.expiresAt ?? 0)) return 'expired';
  return state;
}

type Emitted = { type: 'grant.revoked' | 'grant.expired' | 'grant.rotated'; grantId: string; agentId: string };

export const oauthGrantMachine = setup({
  types: {
    context: {} as OAuthGrantContext,
    input: {} as OAuthGrantInput,
    events: {} as OAuthGrantEvent,
    emitted: {} as Emitted,
  },
  guards: {
    // Wake-ups that arrive early (clock skew, a replayed job) are ignored.
    pendingOver: ({ context, event }) => event.at >= context.pendingExpiresAt,
    codeOver: ({ context, event }) => event.at >= (context.codeExpiresAt ?? 0),
    grantOver: ({ context, event }) => event.at >= (context.expiresAt ?? 0),
    codeTaken: ({ context, event }) =>
      event.type === 'grant.exchange' && event.codeHash === context.codeHash && event.at < (context.codeExpiresAt ?? 0),
    // The code of this grant presented again after it was exchanged: a replay (RFC 6749 §4.1.2).
    codeReplayed: ({ context, event }) => event.type === 'grant.exchange' && event.codeHash === context.codeHash,
    currentRefresh: ({ context, event }) =>
      event.type === 'grant.refresh' && event.presentedHash === context.refreshHash && event.at < (context.expiresAt ?? 0),
    spentRefresh: ({ context, event }) => event.type === 'grant.refresh' && context.usedRefreshHashes.includes(event.presentedHash),
  },
  actions: {
    announceEnd: emit(({ context }) => ({
      type: context.endReason === 'expired' ? ('grant.expired' as const) : ('grant.revoked' as const),
      grantId: context.grantId,
      agentId: context.agentId ?? '',
    })),
  },
}).createMachine({
  id: 'oauth-grant',
  initial: 'pending',
  context: ({ input }) => ({ ...input, usedRefreshHashes: [] }),
  states: {
    pending: {
      on: {
        'grant.approve': {
          target: 'approved',
          actions: assign(({ event }) =>
            event.type === 'grant.approve'
              ? {
                  userId: event.userId,
                  agentId: event.agentId,
                  publicId: event.publicId,
                  scope: event.scope,
                  codeHash: event.codeHash,
                  codeExpiresAt: event.codeExpiresAt,
                  approvedAt: event.at,
                }
              : {},
          ),
        },
        'grant.deny': { target: 'denied', actions: assign({ endedAt: ({ event }) => event.at, endReason: 'denied' as const }) },
        'grant.expire': {
          guard: 'pendingOver',
          target: 'expired',
          actions: assign({ endedAt: ({ event }) => event.at, endReason: 'expired' as const }),
        },
      },
    },
    approved: {
      on: {
        'grant.exchange': {
          guard: 'codeTaken',
          target: 'active',
          actions: assign(({ event }) =>
            event.type === 'grant.exchange'
              ? {
                  accessHash: event.accessHash,
                  accessExpiresAt: event.accessExpiresAt,
                  refreshHash: event.refreshHash,
                  expiresAt: event.expiresAt,
                  lastUsedAt: event.at,
                }
              : {},
          ),
        },
        'grant.revoke': { target: 'revoked', actions: assign({ endedAt: ({ event }) => event.at, endReason: 'revoked' as const }) },
        'grant.expire': {
          guard: 'codeOver',
          target: 'expired',
          actions: assign({ endedAt: ({ event }) => event.at, endReason: 'expired' as const }),
        },
      },
    },
    active: {
      on: {
        'grant.refresh': [
          {
            guard: 'currentRefresh',
            actions: [
              assign(({ context, event }) =>
                event.type === 'grant.refresh'
                  ? {
                      accessHash: event.accessHash,
                      accessExpiresAt: event.accessExpiresAt,
                      refreshHash: event.refreshHash,
                      usedRefreshHashes: [...context.usedRefreshHashes, event.presentedHash].slice(-USED_REFRESH_KEPT),
                      lastUsedAt: event.at,
                    }
                  : {},
              ),
              // Every process drops the old access token from its cache: it stops working at once.
              emit(({ context }) => ({ type: 'grant.rotated' as const, grantId: context.grantId, agentId: context.agentId ?? '' })),
            ],
          },
          {
            // A spent refresh token presented again: someone else holds a copy. The whole grant ends.
            guard: 'spentRefresh',
            target: 'revoked',
            actions: [assign({ endedAt: ({ event }) => event.at, endReason: 'refresh_reuse' as const }), 'announceEnd'],
          },
        ],
        'grant.exchange': {
          guard: 'codeReplayed',
          target: 'revoked',
          actions: [assign({ endedAt: ({ event }) => event.at, endReason: 'code_reuse' as const }), 'announceEnd'],
        },
        'grant.touch': { actions: assign({ lastUsedAt: ({ context, event }) => Math.max(context.lastUsedAt ?? 0, event.at) }) },
        'grant.revoke': {
          target: 'revoked',
          actions: [assign({ endedAt: ({ event }) => event.at, endReason: 'revoked' as const }), 'announceEnd'],
        },
        'grant.expire': {
          guard: 'grantOver',
          target: 'expired',
          actions: [assign({ endedAt: ({ event }) => event.at, endReason: 'expired' as const }), 'announceEnd'],
        },
      },
    },
    // Every end is permanent: a grant is never re-activated; the client asks for a new one.
    denied: { type: 'final' },
    revoked: { type: 'final' },
    expired: { type: 'final' },
  },
});

export const oauthGrantDefinition: MachineDefinition<OAuthGrantContext, OAuthGrantEvent, OAuthGrantInput> = {
  type: 'oauth-grant',
  version: 1,
  machine: oauthGrantMachine,
  indexNames: ['agentId'],
  // A pending request names no agent yet: it is listed under none.
  indexes: (context) => ({ agentId: context.agentId ?? '-' }),
  // `auth`: every process drops the grant's tokens from its cache, and event streams opened with it end.
  stream: () => AUTH_STREAM,
};
