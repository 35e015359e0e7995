/** TOTP enrolment for step-up: a QR code (and the secret, for typing in) then the first code to activate it. */
import QRCode from 'qrcode';
import { useState } from 'preact/hooks';
import { client, errorText } from '../api.js';
import { ErrorText } from './status.js';
import { toast } from './toasts.js';
import { CodeInput } from './code-input.js';

export function TotpEnrolment() {
  const [enrolment, setEnrolment] = useState<{ secret: string; qr: string } | undefined>(undefined);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { secret, otpauthUrl } = await client.totp.enroll();
      setEnrolment({ secret, qr: await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 200 }) });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  const activate = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await client.totp.activate(code);
      setEnrolment(undefined);
      setCode('');
      toast('Authenticator app activated');
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="totp-title">
      <h2 id="totp-title">Authenticator app</h2>
      <p class="muted">A 6-digit code from an authenticator app confirms sensitive actions, such as creating a manage key.</p>
      {enrolment ? (
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
      <ErrorText text={error} />
    </section>
  );
}
