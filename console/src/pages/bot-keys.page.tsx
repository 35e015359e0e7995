/** A legacy bot's API keys, with the same flow as an agent's; the authenticator for a manage key's step-up. */
import { useMemo } from 'preact/hooks';
import { KeyManager } from '../components/key-manager.js';
import { TotpEnrolment } from '../components/totp-enrolment.js';
import { botKeyOwner } from '../queries/keys.queries.js';

export function BotKeysPage({ botId }: { botId: string }) {
  const owner = useMemo(() => botKeyOwner(botId), [botId]);
  return (
    <>
      <KeyManager owner={owner} />
      <TotpEnrolment />
    </>
  );
}
