import { randomUUID } from 'node:crypto';
import type { RunningService } from '../../src/composition/service.composition.js';

/**
 * Paper funds for a bot's own trading account. A bot's account has no operator REST route
 * for the faucet (the `:userId` routes act on agents), so the test calls the same catalog
 * operations through the invoker every surface uses.
 */
export async function fundBot(service: RunningService, userId: string, botId: string): Promise<void> {
  const call = (name: string, input: unknown) =>
    service.operations.invoker.invoke({
      name,
      input,
      viewer: { kind: 'operator', scope: 'manage' },
      ctx: {
        principal: { type: 'ops' },
        scope: 'manage',
        subject: { type: 'bot', id: botId },
        userId,
        requestId: randomUUID(),
        correlationId: randomUUID(),
        surface: 'rest',
        idempotencyKey: randomUUID(),
      },
    });
  await call('trading_wallet_custodial_ensure', { chain: 'solana' });
  await call('trading_paper_faucet', { chain: 'solana', token: 'USDC', amount: '1000' });
}
