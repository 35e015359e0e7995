/** Asks before a DCA strategy is deleted: no more buys run, what it bought stays. */
import type { TradingDcaStrategiesListOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { Modal } from './modal.js';
import { ErrorText } from './status.js';
import { toast } from '../toast.js';

type Strategy = TradingDcaStrategiesListOutput['items'][number];

export function DcaDeleteModal(props: { agentId: string; strategy: Strategy; onDone(deleted: boolean): void }) {
  const remove = useAction(async () => {
    await client.dca.remove(props.strategy.name, { agentId: props.agentId });
    toast(`Strategy ${props.strategy.name} deleted`);
    props.onDone(true);
  });
  return (
    <Modal title={`Delete ${props.strategy.name}?`} labelId="delete-dca-title" onClose={() => props.onDone(false)}>
      <p>No more buys will run. What it bought stays in the wallet.</p>
      <ErrorText text={remove.error} />
      <div class="actions">
        <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run()}>
          {remove.busy ? 'Deleting…' : 'Delete strategy'}
        </button>
        <button type="button" class="secondary" data-autofocus onClick={() => props.onDone(false)}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
