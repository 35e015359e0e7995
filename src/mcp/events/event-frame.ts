/**
 * The wire shape of one MCP event (events), shared by the SSE and WebSocket
 * surfaces, plus the small parsers both need. Pure functions: no I/O, no clock.
 */
import { chosenAgentId } from '../../../machines/agent-id.js';
import type { Principal } from '../../auth/credentials/credential-resolver.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { OperationSubject } from '../../operations/operation.types.js';
import type { BusEvent } from '../../../kernel/ports/event-bus.port.js';
import { isPlainObject } from '../../../kernel/shared/is-plain-object.js';

/** One event as a client sees it: SSE `id`/`event`/`data` lines, or one WebSocket JSON message. */
export interface StreamEvent {
  /** The bus id: monotonic per agent (or bot), what `Last-Event-ID` refers to. */
  id: number;
  /** Dot-namespaced type, e.g. `agent.updated`. */
  event: string;
  /** `{type, agentId | botId, at (ISO 8601), ...fields of the event}`. */
  data: Record<string, unknown>;
}

/** Why the server ends a stream; `disconnected` is the client leaving (nothing to tell it). */
export type StreamEndReason = 'revoked' | 'expired' | 'unauthorized' | 'not-found' | 'slow-consumer' | 'shutdown' | 'error';

/** The bus stream an MCP subject's events are published on (see the machines' `stream`). */
export function busStreamOf(subject: OperationSubject): string {
  return `${subject.type}:${subject.id}`;
}

/**
 * Bus event → wire event. The envelope fields (`type`, subject id, `at`) are ours and come
 * first; an event field of the same name cannot override them. An agent is named as its
 * owner knows it (`chosenAgentId`), never by its actor id `<ownerId>~<agentId>`.
 */
export function toStreamEvent(event: BusEvent, subject: OperationSubject): StreamEvent {
  const { type: _type, at: _at, agentId: _agentId, botId: _botId, ...fields } = event.data;
  const subjectField = subject.type === 'agent' ? { agentId: chosenAgentId(subject.id) } : { botId: subject.id };
  return {
    id: event.id,
    event: event.type,
    data: { type: event.type, ...subjectField, at: new Date(event.at).toISOString(), ...withChosenAgentIds(fields) },
  };
}

/**
 * The agent ids inside an event, as the owner knows them: a key event's `ownerId` and an
 * order event's `order.agentId`. The order view writes the chosen id already; events
 * published before it did are still replayed (`Last-Event-ID`), and are mapped here.
 */
function withChosenAgentIds(fields: Record<string, unknown>): Record<string, unknown> {
  const { ownerType, ownerId, order } = fields;
  return {
    ...fields,
    ...(ownerType === 'agent' && typeof ownerId === 'string' ? { ownerId: chosenAgentId(ownerId) } : {}),
    ...(isPlainObject(order) && typeof order.agentId === 'string' ? { order: { ...order, agentId: chosenAgentId(order.agentId) } } : {}),
  };
}

/** SSE framing of one event; `JSON.stringify` never emits a newline, so one `data:` line suffices. */
export function formatSse(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * The replay cursor from the `Last-Event-ID` header (what EventSource sends) or the
 * `lastEventId` query parameter (for clients that cannot set headers). Absent → live only.
 * We only ever hand out integer ids, so anything else is a client bug: 400, not a silent restart.
 */
export function parseLastEventId(header: unknown, query: unknown): number | undefined {
  const raw = typeof header === 'string' && header.trim() !== '' ? header.trim() : typeof query === 'string' ? query.trim() : '';
  if (raw === '') return undefined;
  // Up to 2^53 - 1: the embedded bus's ids are microseconds since the epoch (16 digits).
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw AppError.validation(['Last-Event-ID must be a non-negative integer']);
  return Number(raw);
}

/** The id revocation events name a credential by, or undefined for credentials that cannot be revoked that way. */
export function credentialIdOf(principal: Principal): string | undefined {
  if (principal.type === 'identity-token') return principal.jti;
  if (principal.type === 'oauth-token') return principal.grantId;
  return principal.type === 'agent-key' || principal.type === 'bot-key' ? principal.keyId : undefined;
}

/** When the credential stops being valid on its own (epoch ms), if it ever does. */
export function credentialExpiryOf(principal: Principal): number | undefined {
  return 'expiresAt' in principal && typeof principal.expiresAt === 'number' ? principal.expiresAt : undefined;
}

/**
 * `key.revoked` / `key.expired` (on the `auth` stream or the owner's) and `token.revoked` /
 * `token.expired` (identity tokens), `grant.revoked` / `grant.expired` (OAuth grants; both on the
 * `auth` stream) → which credential, and why.
 */
export function credentialEndOf(event: BusEvent): { credentialId: string; reason: 'revoked' | 'expired' } | undefined {
  const jti = event.data.jti;
  if (typeof jti === 'string') {
    if (event.type === 'token.revoked') return { credentialId: jti, reason: 'revoked' };
    if (event.type === 'token.expired') return { credentialId: jti, reason: 'expired' };
  }
  const grantId = event.data.grantId;
  if (typeof grantId === 'string') {
    if (event.type === 'grant.revoked') return { credentialId: grantId, reason: 'revoked' };
    if (event.type === 'grant.expired') return { credentialId: grantId, reason: 'expired' };
  }
  const keyId = event.data.keyId;
  if (typeof keyId !== 'string') return undefined;
  if (event.type === 'key.revoked') return { credentialId: keyId, reason: 'revoked' };
  if (event.type === 'key.expired') return { credentialId: keyId, reason: 'expired' };
  return undefined;
}
