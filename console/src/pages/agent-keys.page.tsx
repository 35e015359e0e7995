/**
 * One agent's keys and settings: its API keys (the key flow shared with legacy bots), the apps
 * signed in to it with OAuth, the authenticator for step-up, and the agent's control plane.
 */
import { useMemo, useState } from 'preact/hooks';
import { ControlPlane } from '../components/control-plane.js';
import { KeyManager } from '../components/key-manager.js';
import { OAuthGrants } from '../components/oauth-grants.js';
import { TotpEnrolment } from '../components/totp-enrolment.js';
import { agentKeyOwner } from '../queries/keys.queries.js';

export function AgentKeysPage({ agentId }: { agentId: string }) {
  const owner = useMemo(() => agentKeyOwner(agentId), [agentId]);
  // Rotated keys are new keys: the list reads again.
  const [rotations, setRotations] = useState(0);
  return (
    <>
      <KeyManager owner={owner} version={rotations} />
      <OAuthGrants agentId={agentId} />
      <TotpEnrolment />
      <ControlPlane agentId={agentId} onKeysRotated={() => setRotations((n) => n + 1)} />
    </>
  );
}
