/**
 * TOTP enrolment for step-up: a QR code (and the secret, for typing in) then the first code to
 * activate it. Once active the card says so instead of offering a set-up the service refuses
 * (409 `TOTP is already active`); that refusal is how a new page learns it, the service having
 * no read of the state.
 */
import QRCode from 'qrcode';
import { useState } from 'preact/hooks';
import { isSdkError } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { ErrorText } from './status.js';
import { toast } from '../toast.js';
import { CodeInput } from './code-input.js';

/** Sign-ins whose user's authenticator is known active, so every agent's page of the session shows it. */
const activeUsers = new WeakSet<object>();

export function TotpEnrolment() {
  const [active, setActive] = useState(() => activeUsers.has(client.user));
  const markActive = () => {
    activeUsers.add(client.user);
    setActive(true);
  };
  const [enrolment, setEnrolment] = useState<{ secret: string; qr: string } | undefined>(undefined);
  const [code, setCode] = useState('');
  // Setting up and activating are one flow: one busy state and one error line.
  const step = useAction((run: () => Promise<void>) => run());

  const start = () =>
    step.run(async () => {
      try {
        const { secret, otpauthUrl } = await client.totp.enroll();
        setEnrolment({ secret, qr: await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 200 }) });
      } catch (caught) {
        if (isSdkError(caught) && caught.status === 409) markActive();
        else throw caught;
      }
    });

  const activate = (event: Event) => {
    event.preventDefault();
    void step.run(async () => {
      await client.totp.activate(code);
      setEnrolment(undefined);
      setCode('');
      markActive();
      toast('Authenticator app activated');
    });
  };
  const busy = step.busy;

  return (
    <section class="card" aria-labelledby="totp-title">
      <h2 id="totp-title">Authenticator app</h2>
      <p class="muted">A 6-digit code from an authenticator app confirms sensitive actions, such as creating a manage key.</p>
      {active ? (
        <p>
          <span class="badge active">active</span> Your authenticator app is set up: enter its code when an action asks for it.
        </p>
      ) : enrolment ? (
        <form onSubmit={activate} class="totp">
          <img src={enrolment.qr} width={200} height={200} alt="QR code to scan with your authenticator app" />
          <p>
            Scan the code, or type this secret into the app: <code data-testid="totp-secret">{enrolment.secret}</code>
          </p>
          <CodeInput label="Code from the app" value={code} onInput={setCode} />
          <button type="submit" disabled={busy || code.length !== 6}>
            Activate
          </button>
        </form>
      ) : (
        <button type="button" class="secondary" disabled={busy} onClick={start}>
          Set up an authenticator app
        </button>
      )}
      <ErrorText text={step.error} />
    </section>
  );
}
