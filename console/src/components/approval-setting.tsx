/**
 * The order profile's `autoApprove` as "Hold every order for my approval". It holds DCA buys
 * too: each active strategy waits for approval at its next buy, and stays waiting when the hold
 * is lifted. The line under the box (its description) says so before and after the change,
 * naming how many strategies it touches, instead of parking them without a word.
 */
import { client } from '../api.js';
import { useStrategies } from '../queries/dca.queries.js';
import { useOrderProfile } from '../queries/trading.queries.js';
import { useAction } from '../hooks/use-action.js';
import { ErrorText } from './status.js';

const strategies = (count: number): string => `${count} DCA ${count === 1 ? 'strategy' : 'strategies'}`;
/** The verb agreeing with a count: `verb(1, 'waits', 'wait')`. */
const verb = (count: number, one: string, more: string): string => (count === 1 ? one : more);

/** What the hold does to DCA strategies now, given how many are active and how many wait for approval. */
function effect(holding: boolean, active: number, waiting: number): string {
  const waitingNote = `${strategies(waiting)} ${verb(waiting, 'waits', 'wait')} for your approval on the DCA page`;
  if (holding) {
    if (waiting > 0) return `${waitingNote}; lifting the hold does not restart ${verb(waiting, 'it', 'them')}.`;
    if (active > 0)
      return `${strategies(active)} ${verb(active, 'stops', 'stop')} at the next buy too, until you approve each on the DCA page.`;
    return 'DCA buys wait too: a strategy stops at its next buy until you approve it on the DCA page.';
  }
  if (waiting > 0) return `${waitingNote}, held earlier: lifting the hold did not restart ${verb(waiting, 'it', 'them')}.`;
  if (active > 0) return `Holding also stops ${strategies(active)} at the next buy, until you approve each on the DCA page.`;
  return 'Holding also applies to DCA buys.';
}

export function ApprovalSetting({ agentId }: { agentId: string }) {
  const profile = useOrderProfile(agentId);
  const dca = useStrategies(agentId);
  const toggle = useAction(async (hold: boolean) => {
    await client.config.setOrderProfile({ autoApprove: !hold }, { agentId });
    await Promise.all([profile.reload(), dca.reload()]);
  });
  if (!profile.data) return <ErrorText text={profile.error} />;
  const holding = !profile.data.autoApprove;
  const active = dca.data?.items.filter((s) => s.status === 'active').length ?? 0;
  const waiting = dca.data?.items.filter((s) => s.status === 'pending_approval').length ?? 0;

  return (
    <div class="setting">
      <label class="check">
        <input
          type="checkbox"
          checked={holding}
          disabled={toggle.busy}
          onChange={() => void toggle.run(!holding)}
          aria-describedby="hold-effect"
        />
        Hold every order for my approval
      </label>
      <p class="muted small" id="hold-effect">
        {effect(holding, active, waiting)}
      </p>
      <ErrorText text={toggle.error} />
    </div>
  );
}
