import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegram } from '../support/platform-fakes.js';
import { ServiceProcess } from '../support/service-process.js';
import { Client, PUBLIC_URL, signInSolana, solanaWallet } from '../support/test-service.js';

const TOKEN = `987654321:${'C'.repeat(35)}`;

describe('legacy bot platforms across restarts (e2e, child processes)', () => {
  let telegram: FakeTelegram;
  let dataDir: string;
  let env: Record<string, string>;
  const children: ServiceProcess[] = [];

  beforeAll(async () => {
    telegram = await new FakeTelegram(TOKEN).start();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-platforms-'));
    env = {
      DATA_DIR: dataDir,
      PUBLIC_URL,
      TELEGRAM_API_URL: telegram.url,
      TELEGRAM_POLL_TIMEOUT_SECONDS: '1',
      PLATFORM_RETRY_MS: '10',
      PLATFORM_SWEEP_MS: '200',
      PLATFORM_LEASE_MS: '1500',
    };
  });
  afterAll(async () => {
    for (const child of children) await child.stop().catch(() => child.kill());
    await telegram.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a started connector runs again after a crash and after a graceful restart; a message written while down is answered', async () => {
    const first = await ServiceProcess.start(env);
    children.push(first);
    const wallet = solanaWallet();
    const alice = new Client(first.url);
    await signInSolana(alice, wallet);
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'Durable bot' });
    await alice.put(`/api/nest/bots/${bot.id}/telegram-config`, { botToken: TOKEN });
    await alice.post(`/api/nest/bots/${bot.id}/platforms/telegram/start`);
    const polls = telegram.polls;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(telegram.polls).toBeGreaterThan(polls);
    expect((await telegram.replyTo(telegram.say(5, 55, 'help'))).text.length).toBeGreaterThan(0);

    // Crash: nobody polls; a message written meanwhile waits on Telegram's side.
    await first.kill();
    const whileDown = telegram.say(5, 55, 'status');
    const second = await ServiceProcess.start(env);
    children.push(second);
    // Once the dead process's lease ran out, the new one picks the connector up from its stored cursor.
    expect((await telegram.replyTo(whileDown, 15_000)).text).toContain('Durable bot');

    // A graceful restart hands over at once (the lease is released on stop).
    await second.stop();
    const third = await ServiceProcess.start(env);
    children.push(third);
    expect((await telegram.replyTo(telegram.say(5, 55, 'status'), 10_000)).text).toContain('Durable bot');
    const owner = new Client(third.url);
    await signInSolana(owner, wallet);
    expect((await owner.get(`/api/nest/bots/${bot.id}`)).body.platforms.telegram.status).toBe('started');
    // Each message was answered once.
    expect(telegram.sent.filter((m) => m.reply_parameters?.message_id === whileDown)).toHaveLength(1);

    // Stopped, it stays stopped across a restart.
    await owner.post(`/api/nest/bots/${bot.id}/platforms/telegram/stop`);
    await third.stop();
    const fourth = await ServiceProcess.start(env);
    children.push(fourth);
    const pollsAfterStop = telegram.polls;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(telegram.polls).toBe(pollsAfterStop);
  }, 60_000);
});
