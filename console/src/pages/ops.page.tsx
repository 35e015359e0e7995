/**
 * The service operator's page (ops token): the trading kill switch per chain, operation
 * families on and off, and actors of a type, each a link to its inspector. The token is typed here
 * and kept in this tab's memory only (never in storage, gone on reload or "Forget token").
 */
import { setOpsAccess, useOpsAccess } from '../ops-access.js';
import { OpsActors } from '../components/ops-actors.js';
import { OpsCatalog } from '../components/ops-catalog.js';
import { OpsKillSwitch } from '../components/ops-kill-switch.js';
import { OpsTokenForm } from '../components/ops-token-form.js';

export function OpsPage() {
  const ops = useOpsAccess();
  return (
    <>
      <h1>Service operations</h1>
      {ops ? (
        <>
          <p>
            <button type="button" class="secondary" onClick={() => setOpsAccess(undefined)}>
              Forget token
            </button>
          </p>
          <OpsKillSwitch ops={ops} />
          <OpsCatalog ops={ops} />
          <OpsActors ops={ops} />
        </>
      ) : (
        <OpsTokenForm onReady={setOpsAccess} />
      )}
    </>
  );
}
