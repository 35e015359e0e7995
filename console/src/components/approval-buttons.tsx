/** Approve or reject one held order; a refusal that may pass later (kill switch, trading off) is said and the order keeps waiting. */
import { client } from '../api.js';
import { words } from '../format.js';
import { useAction } from '../hooks/use-action.js';
import { type Order, orderSummary } from './order-table.js';
import { toast } from '../toast.js';

export function ApprovalButtons(props: { agentId: string; order: Order; onDone(): void }) {
  const summary = orderSummary(props.order);
  const decide = useAction(
    async (approve: boolean) => {
      const result = approve
        ? await client.trading.approveOrder(props.order.order_id, { agentId: props.agentId })
        : await client.trading.cancelOrder(props.order.order_id, { agentId: props.agentId });
      // An approval refused for a reason that may pass (kill switch, trading off) is a soft error: the order keeps waiting.
      const soft = result as unknown as { success?: boolean; error?: { message: string } };
      if (soft.success === false && soft.error) toast(soft.error.message, 'error');
      else toast(approve ? `Approved: ${summary} (${words(result.status)})` : `Rejected: ${summary}`);
    },
    { report: 'toast', settled: props.onDone },
  );
  const busy = decide.busy;
  return (
    <div class="actions tight">
      <button type="button" disabled={busy} aria-label={`Approve ${summary}`} onClick={() => void decide.run(true)}>
        Approve
      </button>
      <button type="button" class="danger" disabled={busy} aria-label={`Reject ${summary}`} onClick={() => void decide.run(false)}>
        Reject
      </button>
    </div>
  );
}
