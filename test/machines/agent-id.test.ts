import { describe, expect, it } from 'vitest';
import { chosenAgentId, isReservedAgentId, scopedActorId } from '../../machines/agent-id.js';

describe('agent ids as their owner knows them', () => {
  it('an owner-scoped actor id shows the chosen id: the part after the first `~`', () => {
    expect(chosenAgentId(scopedActorId('usr_abc', 'alpha'))).toBe('alpha');
    expect(chosenAgentId('usr_abc~alpha.v2:x')).toBe('alpha.v2:x');
    expect(chosenAgentId('a~b~c')).toBe('b~c');
  });

  it('generated ids, agents from before scoping and bot ids are unchanged', () => {
    for (const id of ['agt_Zm9vYmFyYmF6cXV4', 'legacy-agent', 'bot_x', '']) expect(chosenAgentId(id)).toBe(id);
  });
});

describe('agent ids onboarding made before they were unique in the service', () => {
  it('are shown whole: a provider subject’s agents and a wallet’s `erc8004-wallet` / `erc8004:` agents', () => {
    for (const id of ['idp_abc~erc8004-agent', 'idp_abc~alpha', 'usr_abc~erc8004-wallet', 'usr_abc~erc8004:8453:0xabc:7'])
      expect(chosenAgentId(id)).toBe(id);
  });

  it('reserves the ids the service names its agents with', () => {
    for (const id of ['agt_x', 'erc8004-wallet', 'erc8004:1:0xabc:7']) expect(isReservedAgentId(id)).toBe(true);
    for (const id of ['alpha', 'erc8004-wallet-2', 'agent_x']) expect(isReservedAgentId(id)).toBe(false);
  });
});
