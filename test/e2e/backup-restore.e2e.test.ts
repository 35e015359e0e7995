/**
 * `agentctl backup` under load and `agentctl restore` into a fresh data directory, all real
 * processes on the real embedded store: a service takes swaps, new keys and new DCA strategies
 * (each one an audit entry too) while `agentctl backup` copies its store; the archive is
 * restored beside it and a second service starts there. Every order, key and strategy
 * acknowledged before the backup started must be there (the keys' old secrets authenticating),
 * nothing acknowledged after the backup ended may be, the restored ledger must agree with the
 * restored orders (one snapshot, not pages of different moments), and `agentctl audit verify`
 * must pass on the restored service.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fromBaseUnits } from '../../kernel/vocabulary/amounts.js';
import type { OrderView } from '../../machines/order-view.js';
import { bearer, FixtureHttpError, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { ServiceProcess } from '../support/service-process.js';
import { Client, PUBLIC_URL, signInSolana } from '../support/test-service.js';

const AGENTCTL = fileURLToPath(new URL('../../bin/agentctl.js', import.meta.url));
const PASSPHRASE = 'backup passphrase for the test';
const USDC_FUNDS = 100_000n;
const USDC_DECIMALS = 6;
const SOL_DECIMALS = 9;
/** Agents the keys are spread over (25 active keys each at most). */
const KEY_AGENTS = 4;
/** Below the 25 active keys each of the agents may have. */
const MAX_KEYS = KEY_AGENTS * 22;
/** The least time between two calls of one load lane (four lanes: at most 16 calls a second). */
const LANE_PERIOD_MS = 250;
/** Below the 100 strategies a user may have. */
const MAX_STRATEGIES = 90;

/** Runs `agentctl` as its own process, as an operator would. */
function agentctl(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [AGENTCTL, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out, err })));
}

interface Acked<T> {
  value: T;
  /** When its acknowledgement arrived. */
  at: number;
}

describe('agentctl backup and restore (embedded profile, real processes)', () => {
  const work = mkdtempSync(join(tmpdir(), 'backup-e2e-'));
  const sourceDir = join(work, 'source');
  const restoredDir = join(work, 'restored');
  const archive = join(work, 'service.agentbak');
  const children: ServiceProcess[] = [];

  afterAll(async () => {
    await Promise.all(children.filter((c) => c.child.exitCode === null && c.child.signalCode === null).map((c) => c.kill()));
    rmSync(work, { recursive: true, force: true });
  });

  it('restores every order, key, strategy and audit chain acknowledged before a backup taken under load', async () => {
    // --- a running service with an operator, agents, a funded wallet ---
    const source = await ServiceProcess.start({ DATA_DIR: sourceDir, PUBLIC_URL });
    children.push(source);
    const operator = await Operator.signIn(source);
    const http = operator.client;
    const userId = operator.userId;
    const agents = await Promise.all(Array.from({ length: KEY_AGENTS }, (_, i) => operator.agent(`backup-${i}`)));
    expect((await http.put(`/api/nest/agents/${agents[0]!.agentId}/trading`, { enabled: true })).status).toBe(200);
    expect(
      (await http.post(`/api/nest/trading/wallets/custodial/${userId}`, {}, { 'x-idempotency-key': randomUUID() })).status,
    ).toBeLessThan(300);
    const funded = await http.post(`/api/nest/trading/paper/faucet/${userId}`, {
      chain: 'solana',
      token: 'USDC',
      amount: USDC_FUNDS.toString(),
    });
    expect(funded.status).toBe(200);

    const orders: Acked<OrderView>[] = [];
    const keys: Acked<{ publicId: string; secret: string }>[] = [];
    const strategies: Acked<string>[] = [];
    const failures: string[] = [];
    const swap = async () => {
      const answer = await http.post(
        '/api/nest/trading/command',
        { message: 'swap 1 USDC to SOL with 3% slippage' },
        { 'x-idempotency-key': randomUUID() },
      );
      if (answer.status === 200 && answer.body?.order) orders.push({ value: answer.body.order as OrderView, at: Date.now() });
      else if (answer.status === 429) await idle();
      else failures.push(`swap: ${answer.status} ${JSON.stringify(answer.body)}`);
    };
    // A lane whose step has nothing left to do must still wait on a timer: a loop of promises
    // that resolve at once never lets a timer run, so the backup's end would never be seen.
    const idle = () => new Promise((resolve) => setTimeout(resolve, 200));
    const key = async () => {
      if (keys.length >= MAX_KEYS) return void (await idle());
      const agent = agents[keys.length % KEY_AGENTS]!;
      try {
        const { secret } = await operator.agentKey(agent.agentId, keys.length % 2 ? 'trade' : 'read', `k-${keys.length}`);
        keys.push({ value: { publicId: agent.publicId, secret }, at: Date.now() });
      } catch (error) {
        // The operator's session budget: a client waits and tries again; anything else fails the test.
        if (!(error instanceof FixtureHttpError && error.status === 429)) throw error;
        await idle();
      }
    };
    const strategy = async () => {
      if (strategies.length >= MAX_STRATEGIES) return void (await idle());
      const name = `dca-${randomUUID().slice(0, 8)}`;
      const answer = await http.post(`/api/nest/trading/strategies/${userId}`, {
        name,
        inputToken: 'USDC',
        outputToken: 'SOL',
        amount: '1',
        interval: 'every 1 days',
      });
      if (answer.status === 201) strategies.push({ value: name, at: Date.now() });
      else if (answer.status === 429) await idle();
      else failures.push(`strategy: ${answer.status} ${JSON.stringify(answer.body)}`);
    };

    // --- some history first, then load on three lanes while agentctl backup runs ---
    for (let i = 0; i < 10; i++) await Promise.all([swap(), key(), strategy()]);
    let loading = true;
    // Each lane paced to at most one call per LANE_PERIOD_MS: the four share one operator session,
    // whose budget (300 a minute) a quiet machine would otherwise spend within seconds.
    const lane = async (step: () => Promise<void>) => {
      while (loading) {
        const started = Date.now();
        await step();
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, LANE_PERIOD_MS - (Date.now() - started))));
      }
    };
    const lanes = Promise.all([lane(swap), lane(swap), lane(key), lane(strategy)]);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the lanes are busy when the backup starts
    const backupStarted = Date.now();
    const backup = await agentctl(['backup', archive], { DATA_DIR: sourceDir, BACKUP_PASSPHRASE: PASSPHRASE });
    const backupEnded = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 500)); // acknowledged after the backup ended: must not be restored
    loading = false;
    await lanes;
    expect(backup, backup.err).toMatchObject({ code: 0, out: expect.stringContaining('(compacted)') });
    expect(failures).toEqual([]);
    const ackedBefore = <T>(items: Acked<T>[]) => items.filter((item) => item.at < backupStarted).map((item) => item.value);
    const ackedAfter = <T>(items: Acked<T>[]) => items.filter((item) => item.at > backupEnded).map((item) => item.value);
    const ackedDuring = <T>(items: Acked<T>[]) => items.filter((item) => item.at >= backupStarted && item.at <= backupEnded).length;
    const sourceBytes = statSync(join(sourceDir, 'store', 'data.mdb')).size;
    console.info(
      `[backup-restore] source data.mdb ${sourceBytes} bytes, archive ${statSync(archive).size} bytes ` +
        `(${(statSync(archive).size / sourceBytes).toFixed(2)}× the live file); backup took ${backupEnded - backupStarted} ms; acknowledged before / during / after it: ` +
        `orders ${ackedBefore(orders).length}/${ackedDuring(orders)}/${ackedAfter(orders).length}, keys ${ackedBefore(keys).length}/${ackedDuring(keys)}/${ackedAfter(keys).length}, ` +
        `strategies ${ackedBefore(strategies).length}/${ackedDuring(strategies)}/${ackedAfter(strategies).length}\n${backup.out}`,
    );
    expect(ackedDuring(orders) + ackedDuring(keys) + ackedDuring(strategies)).toBeGreaterThan(0); // the store was written while it was copied
    expect(ackedAfter(orders).length).toBeGreaterThan(0);

    // --- restore: never over the running service's directory, then into a fresh one ---
    const overRunning = await agentctl(['restore', archive, '--data-dir', sourceDir, '--force'], { BACKUP_PASSPHRASE: PASSPHRASE });
    expect(overRunning).toMatchObject({ code: 1, err: expect.stringContaining('restore never replaces the data of a running service') });
    const restore = await agentctl(['restore', archive, '--data-dir', restoredDir], { BACKUP_PASSPHRASE: PASSPHRASE });
    expect(restore, restore.err).toMatchObject({ code: 0, out: expect.stringContaining(`start the service with DATA_DIR=${restoredDir}`) });

    const restored = await ServiceProcess.start({ DATA_DIR: restoredDir, PUBLIC_URL });
    children.push(restored);
    expect(restored.opsToken).toBe(source.opsToken); // the secrets came back
    const client = new Client(restored.url);
    await signInSolana(client, operator.wallet); // the same wallet is the same user there

    // Orders: every one acknowledged before the backup, as it was; none acknowledged after it.
    const listed = new Map<string, OrderView>();
    let cursor: string | undefined;
    do {
      const page = await client.get(`/api/nest/trading/orders/${userId}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      for (const order of page.body.items as OrderView[]) listed.set(order.order_id, order);
      cursor = page.body.nextCursor;
    } while (cursor);
    for (const order of ackedBefore(orders))
      expect(listed.get(order.order_id)).toMatchObject({ status: order.status, amountIn: order.amountIn });
    for (const order of ackedAfter(orders)) expect(listed.has(order.order_id)).toBe(false);

    // The ledger is of the same instant as the orders: USDC down by exactly the restored fills.
    const filled = [...listed.values()].filter((order) => order.status === 'filled');
    const spent = filled.reduce((total, order) => total + BigInt(order.amountIn), 0n);
    const bought = filled.reduce((total, order) => total + BigInt(order.filledOut!), 0n);
    const positions = await client.get(`/api/nest/trading/positions/${userId}`);
    expect(positions.status).toBe(200);
    const held = Object.fromEntries(positions.body.positions.map((p: { symbol: string; amount: string }) => [p.symbol, p.amount]));
    expect(held).toEqual({
      USDC: fromBaseUnits(USDC_FUNDS * 10n ** BigInt(USDC_DECIMALS) - spent, USDC_DECIMALS),
      SOL: fromBaseUnits(bought, SOL_DECIMALS),
    });

    // Keys: the old secrets authenticate; keys made after the backup do not exist there.
    for (const { publicId, secret } of ackedBefore(keys)) {
      const answer = await rawRpc(restored.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(secret));
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.result.tools.length).toBeGreaterThan(0);
    }
    for (const { publicId, secret } of ackedAfter(keys)) {
      const answer = await rawRpc(restored.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(secret));
      expect(answer.status).toBe(401);
    }

    // Strategies: every one acknowledged before the backup, active.
    const listedStrategies = await client.get(`/api/nest/trading/strategies/${userId}?limit=100`);
    expect(listedStrategies.status).toBe(200);
    const names = new Map((listedStrategies.body.items as Array<{ name: string; status: string }>).map((s) => [s.name, s.status]));
    for (const name of ackedBefore(strategies)) expect(names.get(name)).toBe('active');
    for (const name of ackedAfter(strategies)) expect(names.has(name)).toBe(false);

    // The audit chains verify on the restored service, through agentctl as an operator runs it.
    const verify = await agentctl(['audit', 'verify', '--url', restored.url, '--token', restored.opsToken], {});
    expect(verify, verify.err).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^OK: \d+ chain\(s\), \d+ entries checked, 0 broken$/m),
    });
    console.info(`[backup-restore] restored: ${listed.size} orders, ${names.size} strategies; ${verify.out.trim()}`);

    await restored.stop();
    await source.stop();
  }, 600_000);
});
