import type { Logger } from 'pino';
import type { WithdrawalView } from '../../machines/withdrawal.machine.js';
import type { BusEventInput } from '../../kernel/ports/event-bus.port.js';

/**
 * One log line per withdrawal state change, read from the withdrawal's own durable events
 * (`withdrawal.created` / `withdrawal.updated`): whichever road moved it (a request, the
 * reconciler after a crash, its sweep), the change shows in the logs with its ids. A failure
 * is a warning: funds meant to leave did not.
 */
export function logWithdrawalChange(logger: Pick<Logger, 'info' | 'warn'>, event: BusEventInput): void {
  if (event.type !== 'withdrawal.created' && event.type !== 'withdrawal.updated') return;
  const withdrawal = event.data.withdrawal as WithdrawalView | undefined;
  if (!withdrawal) return;
  const fields = {
    withdrawalId: withdrawal.withdrawalId,
    ...(withdrawal.agentId ? { agentId: withdrawal.agentId } : { botId: withdrawal.botId }),
    chain: withdrawal.chain,
    status: withdrawal.status,
    ...(withdrawal.txHash ? { txHash: withdrawal.txHash } : {}),
    ...(withdrawal.reason ? { reason: withdrawal.reason } : {}),
  };
  if (withdrawal.status === 'failed') logger.warn(fields, 'withdrawal failed');
  else logger.info(fields, `withdrawal ${withdrawal.status}`);
}
