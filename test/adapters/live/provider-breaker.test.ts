import { describe, expect, it } from 'vitest';
import { ProviderBreaker, isProviderFailure } from '../../../adapters/resilience/provider-breaker.js';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

const unavailable = () => new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: p (HTTP 502)');
const noRoute = () => new AppError('VALIDATION_ERROR', 'No route found');

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

function setup(threshold = 3, openMs = 60_000) {
  const clock = new ManualClock();
  const breaker = new ProviderBreaker({ provider: 'jupiter', threshold, openMs, timeoutMs: 1_000, clock });
  let calls = 0;
  const run = (outcome: 'ok' | Error) =>
    breaker.execute(async () => {
      calls++;
      if (outcome !== 'ok') throw outcome;
      return 'ok';
    });
  return { clock, breaker, run, calls: () => calls };
}

describe('isProviderFailure', () => {
  it('counts timeouts, 5xx, 429 and untranslated errors; not business refusals or an open circuit', () => {
    expect(isProviderFailure(unavailable())).toBe(true);
    expect(isProviderFailure(new AppError('RATE_LIMITED', 'slow down'))).toBe(true);
    expect(isProviderFailure(new TypeError('fetch failed'))).toBe(true);
    expect(isProviderFailure(noRoute())).toBe(false);
    expect(isProviderFailure(new AppError('TOKEN_NOT_FOUND', 'Token not found: x'))).toBe(false);
    expect(isProviderFailure(new AppError('INSUFFICIENT_BALANCE', 'poor'))).toBe(false);
    expect(isProviderFailure(new AppError('CIRCUIT_BREAKER_OPEN', 'open'))).toBe(false);
  });
});

describe('ProviderBreaker', () => {
  it('says in the log when it opens (warn) and when it closes again (info), once each, with its name', async () => {
    const clock = new ManualClock();
    const lines: Array<{ level: 'info' | 'warn'; fields: Record<string, unknown>; msg: string }> = [];
    const logger = {
      info: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: 'info', fields, msg }),
      warn: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: 'warn', fields, msg }),
    };
    const breaker = new ProviderBreaker({ provider: 'jupiter', threshold: 2, openMs: 1_000, timeoutMs: 0, clock, logger: logger as never });
    for (let i = 0; i < 3; i++) await breaker.execute(() => Promise.reject(unavailable())).catch(() => undefined);
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { breaker: 'jupiter', failures: 2, openMs: 1_000 },
        msg: 'circuit breaker opened: calls to the provider fail at once',
      },
    ]);
    await clock.advance(1_000);
    expect(await breaker.execute(async () => 'ok')).toBe('ok');
    expect(lines.slice(1)).toEqual([
      { level: 'info', fields: { breaker: 'jupiter' }, msg: 'circuit breaker closed: the provider answers again' },
    ]);
  });

  it('passes results and errors through while closed, with an abort signal for the call', async () => {
    const { breaker } = setup();
    let seen: AbortSignal | undefined;
    expect(
      await breaker.execute(async (signal) => {
        seen = signal;
        return 42;
      }),
    ).toBe(42);
    expect(seen).toBeInstanceOf(AbortSignal);
    expect((await failure(breaker.execute(() => Promise.reject(noRoute())))).message).toBe('No route found');
    expect(breaker.state()).toBe('closed');
  });

  it('opens after `threshold` consecutive provider failures and then fails fast with the interface message', async () => {
    const { breaker, run, calls } = setup(3);
    for (let i = 0; i < 3; i++) await failure(run(unavailable()));
    expect(breaker.state()).toBe('open');
    const error = await failure(run('ok'));
    expect(error.code).toBe('CIRCUIT_BREAKER_OPEN');
    expect(httpStatusOf(error)).toBe(503);
    expect(error.message).toBe('Circuit breaker open for provider: jupiter');
    expect(error.retryAfterSeconds).toBe(60);
    expect(calls()).toBe(3);
  });

  it('does not open on business refusals, and a success resets the count', async () => {
    const { breaker, run } = setup(2);
    for (let i = 0; i < 5; i++) await failure(run(noRoute()));
    await failure(run(unavailable()));
    await run('ok');
    await failure(run(unavailable()));
    expect(breaker.state()).toBe('closed');
    await failure(run(unavailable()));
    expect(breaker.state()).toBe('open');
  });

  it('counts down retryAfterSeconds on the injected clock, then lets one probe through', async () => {
    const { breaker, run, clock, calls } = setup(1);
    await failure(run(unavailable()));
    await clock.advance(45_000);
    expect((await failure(run('ok'))).retryAfterSeconds).toBe(15);
    await clock.advance(15_000);
    expect(breaker.state()).toBe('half_open');
    expect(await run('ok')).toBe('ok');
    expect(breaker.state()).toBe('closed');
    expect(calls()).toBe(2);
  });

  it('re-opens for a full window when the probe fails', async () => {
    const { breaker, run, clock } = setup(1);
    await failure(run(unavailable()));
    await clock.advance(60_000);
    await failure(run(unavailable()));
    expect(breaker.state()).toBe('open');
    expect((await failure(run('ok'))).retryAfterSeconds).toBe(60);
  });

  it('closes when the probe meets a business refusal: the provider answered', async () => {
    const { breaker, run, clock } = setup(1);
    await failure(run(unavailable()));
    await clock.advance(60_000);
    expect((await failure(run(noRoute()))).code).toBe('VALIDATION_ERROR');
    expect(breaker.state()).toBe('closed');
  });

  it('refuses other calls while the single probe runs', async () => {
    const { breaker, run, clock } = setup(1);
    await failure(run(unavailable()));
    await clock.advance(60_000);
    let release!: () => void;
    const probe = breaker.execute(() => new Promise<string>((resolve) => (release = () => resolve('probe'))));
    expect(breaker.state()).toBe('half_open');
    expect((await failure(run('ok'))).code).toBe('CIRCUIT_BREAKER_OPEN');
    release();
    expect(await probe).toBe('probe');
    expect(breaker.state()).toBe('closed');
  });

  it('times out a call, aborts its signal, and counts the timeout as a failure', async () => {
    const breaker = new ProviderBreaker({ provider: 'slowpoke', threshold: 1, timeoutMs: 30 });
    let signal: AbortSignal | undefined;
    const error = await failure(
      breaker.execute((s) => {
        signal = s;
        return new Promise(() => undefined);
      }),
    );
    expect(error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(error.message).toBe('Provider unavailable: slowpoke (timed out after 30 ms)');
    expect(signal?.aborted).toBe(true);
    expect(breaker.state()).toBe('open');
  });

  it('a timeout of 0 means none (in-process providers), and a per-call budget overrides the default', async () => {
    const breaker = new ProviderBreaker({ provider: 'paper', threshold: 1, timeoutMs: 0 });
    const slow = (ms: number) => async (signal: AbortSignal) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return signal.aborted ? 'aborted' : 'done';
    };
    await expect(breaker.execute(slow(40))).resolves.toBe('done');
    await expect(breaker.execute(slow(40), { timeoutMs: 10 })).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      message: 'Provider unavailable: paper (timed out after 10 ms)',
    });
  });

  it('half-opens on the system clock after a short real window', async () => {
    const breaker = new ProviderBreaker({ provider: 'p', threshold: 1, openMs: 50, timeoutMs: 1_000 });
    await failure(breaker.execute(() => Promise.reject(unavailable())));
    expect(breaker.state()).toBe('open');
    await new Promise((resolve) => setTimeout(resolve, 70));
    expect(breaker.state()).toBe('half_open');
    expect(await breaker.execute(async () => 'back')).toBe('back');
    expect(breaker.state()).toBe('closed');
  });
});
