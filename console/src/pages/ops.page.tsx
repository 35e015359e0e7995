/**
 * The service operator's page (ops token): the trading kill switch per chain, operation
 * families on and off, and actor inspection as `agentctl` shows it. The token is typed here
 * and kept in this page's memory only (never in storage, gone on reload or "Forget token").
 */
import { useState } from 'preact/hooks';
import type { OpsClient } from 'agent-runtime-sdk';
import { OpsActors } from '../components/ops-actors.js';
import { OpsCatalog } from '../components/ops-catalog.js';
import { OpsKillSwitch } from '../components/ops-kill-switch.js';
import { OpsTokenForm } from '../components/ops-token-form.js';

export function OpsPage() {
  const [ops, setOps] = useState<OpsClient | undefined>(undefined);
  return (
    <>
      <h1>Service operations</h1>
      {ops ? (
        <>
          <p>
            <button type="button" class="secondary" onClick={() => setOps(undefined)}>
              Forget token
            </button>
          </p>
          <OpsKillSwitch ops={ops} />
          <OpsCatalog ops={ops} />
          <OpsActors ops={ops} />
        </>
      ) : (
        <OpsTokenForm onReady={setOps} />
      )}
    </>
  );
}
