import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import { orderDefinition } from '../../machines/order.machine.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';

/** The actors the status reader reads (`StoreStatusReader`): agents and legacy bots by id, orders counted by index. */
export function statusActors(runtime: ActorRuntime) {
  return {
    agents: runtime.collection(agentDefinition),
    bots: runtime.collection(botDefinition),
    orders: runtime.collection(orderDefinition),
  };
}
