/**
 * The API keys of what a key operates: an agent, or a legacy bot (whose keys the service keeps
 * under its MCP settings). The pages show both with the one key flow: name and scope, the secret
 * once, step-up before a `manage` key, confirmation before a revocation.
 */
import type { AgentKeysCreateOutput, AgentKeysListOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

export type Key = AgentKeysListOutput['items'][number];
export type KeyScope = AgentKeysCreateOutput['scope'];

export interface KeyOwner {
  /** What the keys operate, in the page's words. */
  kind: 'agent' | 'bot';
  id: string;
  list(): Promise<{ items: Key[] }>;
  create(input: { name: string; scope: KeyScope; stepUpToken?: string }): Promise<AgentKeysCreateOutput>;
  revoke(keyId: string): Promise<unknown>;
  /** A single-use step-up token for the authenticator code. */
  stepUp(code: string): Promise<{ stepUpToken: string }>;
}

export const agentKeyOwner = (agentId: string): KeyOwner => ({
  kind: 'agent',
  id: agentId,
  list: () => client.keys.list(agentId, { limit: 200 }),
  create: (input) => client.keys.create(agentId, input),
  revoke: (keyId) => client.keys.revoke(agentId, keyId),
  stepUp: (code) => client.agents.stepUp(agentId, { code }),
});

/** The owner's keys; read again when the owner or `version` changes. */
export const useKeys = (owner: KeyOwner, version = 0) => useLoad(() => owner.list(), [owner.kind, owner.id, version]);

/** A legacy bot's keys: the same flow, on the bot's routes. */
export const botKeyOwner = (botId: string): KeyOwner => ({
  kind: 'bot',
  id: botId,
  list: () => client.botKeys.list(botId, { limit: 200 }),
  create: (input) => client.botKeys.create(botId, input),
  revoke: (keyId) => client.botKeys.revoke(botId, keyId),
  stepUp: (code) => client.bots.stepUp(botId, { code }),
});
