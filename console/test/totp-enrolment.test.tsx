// @vitest-environment happy-dom
/**
 * TOTP enrolment: the QR code to scan (and the secret to type), then the first code from the
 * app to activate it; a wrong code reads `Verification failed` and the QR stays for another try.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toasts } from '../src/components/toasts.js';
import { TotpEnrolment } from '../src/components/totp-enrolment.js';
import { type FakeService, json, refusal, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

let service: FakeService;
const SECRET = 'JBSWY3DPEHPK3PXP';
beforeEach(async () => {
  service = await signedInService();
  service.on('POST', '/api/nest/auth/totp/enroll', () =>
    json(200, { secret: SECRET, otpauthUrl: `otpauth://totp/Agents:operator?secret=${SECRET}&issuer=Agents` }),
  );
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

async function startEnrolment() {
  render(
    <>
      <TotpEnrolment />
      <Toasts />
    </>,
  );
  fireEvent.click(screen.getByRole('button', { name: 'Set up an authenticator app' }));
  return (await screen.findByRole('img', { name: 'QR code to scan with your authenticator app' })) as HTMLImageElement;
}

const enterCode = (value: string) => {
  fireEvent.input(screen.getByLabelText('Code from the app'), { target: { value } });
  fireEvent.click(screen.getByRole('button', { name: 'Activate' }));
};

describe('TotpEnrolment', () => {
  it('shows a QR code and the secret to type in, then activates with the first code', async () => {
    const qr = await startEnrolment();
    expect(qr.src).toMatch(/^data:image\/png;base64,/);
    expect(screen.getByTestId('totp-secret').textContent).toBe(SECRET);
    service.on('POST', '/api/nest/auth/totp/activate', () => json(200, { active: true }));
    enterCode('123456');
    await screen.findByText('Authenticator app activated');
    expect(service.calls('POST', '/api/nest/auth/totp/activate')[0]?.body).toEqual({ code: '123456' });
    // Done: the QR code and the secret are gone from the page.
    expect(screen.queryByRole('img')).toBeNull();
    expect(screen.queryByTestId('totp-secret')).toBeNull();
  });

  it('reads `Verification failed` on a wrong code and keeps the QR code for another try', async () => {
    await startEnrolment();
    service.on('POST', '/api/nest/auth/totp/activate', () => refusal(400, 'Verification failed'));
    enterCode('000000');
    expect((await screen.findByRole('alert')).textContent).toBe('Verification failed');
    expect(screen.getByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeTruthy();
    expect(screen.queryByText('Authenticator app activated')).toBeNull();
  });

  it('activates only with six digits', async () => {
    await startEnrolment();
    fireEvent.input(screen.getByLabelText('Code from the app'), { target: { value: '12345' } });
    expect((screen.getByRole('button', { name: 'Activate' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('once activated says so, on this card and on the next agent page, instead of offering the set-up again', async () => {
    await startEnrolment();
    service.on('POST', '/api/nest/auth/totp/activate', () => json(200, { active: true }));
    enterCode('123456');
    await screen.findByText('Authenticator app activated');
    expect(screen.getByText(/Your authenticator app is set up/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Set up an authenticator app' })).toBeNull();
    cleanup();
    render(<TotpEnrolment />);
    expect(screen.getByText(/Your authenticator app is set up/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Set up an authenticator app' })).toBeNull();
  });

  it('learns from the 409 `TOTP is already active` that it is active: says so, no error, no QR', async () => {
    service.on('POST', '/api/nest/auth/totp/enroll', () => refusal(409, 'TOTP is already active'));
    render(<TotpEnrolment />);
    fireEvent.click(screen.getByRole('button', { name: 'Set up an authenticator app' }));
    await screen.findByText(/Your authenticator app is set up/);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('img')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Set up an authenticator app' })).toBeNull();
  });

  it("shows the service's other refusals to enrol", async () => {
    service.on('POST', '/api/nest/auth/totp/enroll', () => refusal(403, 'Forbidden'));
    render(<TotpEnrolment />);
    fireEvent.click(screen.getByRole('button', { name: 'Set up an authenticator app' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Forbidden'));
    expect(screen.queryByRole('img')).toBeNull();
  });
});
