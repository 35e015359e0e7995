import { describe, expect, it } from 'vitest';
import { chosenAgentId, scopedActorId } from '../../machines/agent-id.js';

describe('agent ids as their owner knows them (issue 16, item 8)', () => {
  it('an owner-scoped actor id shows the chosen id: the part after the first `~`', () => {
    expect(chosenAgentId(scopedActorId('usr_abc', 'alpha'))).toBe('alpha');
    expect(chosenAgentId('usr_abc~alpha.v2:x')).toBe('alpha.v2:x');
    expect(chosenAgentId('a~b~c')).toBe('b~c');
  });

  it('generated ids, agents from before scoping and bot ids are unchanged', () => {
    for (const id of ['agt_Zm9vYmFyYmF6cXV4', 'legacy-agent', 'bot_x', '']) expect(chosenAgentId(id)).toBe(id);
  });
});
