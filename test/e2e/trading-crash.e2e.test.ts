/**
 * SIGKILL during 200 concurrent guarded swaps with idempotency keys. After a
 * restart on the same DATA_DIR and client retries with the same keys, every swap that was
 * acknowledged exists exactly once, every key ends with exactly one order, and no swap
 * executed twice at the venue (one fill per order, balances moved by exactly the fills).
 *
 * The client is a program with a pool of connections (like an HTTP agent with a socket
 * limit): 200 swaps share CONNECTIONS sockets, so at the kill some are acknowledged, some
 * in flight and some not sent yet. It retries as a client should: the same key and body,
 * honouring `Retry-After` with exponential backoff on 409 (key still leased by the dead
 * process), 429 and 503.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import {
  BALANCES_COLLECTION,
  FILLS_COLLECTION,
  PAPER_COLLECTIONS,
  type BalanceDoc,
  type FillDoc,
} from '../../adapters/paper/paper-ledger.js';
import { fromBaseUnits } from '../../kernel/vocabulary/amounts.js';
import { ringIds } from '../../kernel/vocabulary/id-ring.js';
import type { OrderView } from '../../machines/order-view.js';
import { keyedOrder } from '../../src/operations/definitions/trading-schemas.js';
import type { OperationContext } from '../../src/operations/operation.types.js';
import type { StoredDocument } from '../../kernel/ports/store.port.js';
import { ServiceProcess } from '../support/service-process.js';
import { Client, PUBLIC_URL, signInSolana, solanaWallet, type HttpResult } from '../support/test-service.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SWAPS = 200;
/** Sockets of the client's pool; also bounds the keys in flight at the kill. */
const CONNECTIONS = 32;
/** Kill the service once this many swaps were acknowledged. */
const KILL_AFTER = SWAPS / 2;
/** Generous slippage: orders the crash left unsent are sent seconds later, at a moved price. */
const SWAP = 'swap 1 USDC to SOL with 3% slippage';
const USDC_FUNDS = 100_000n;
const SOL_FUNDS = 1n;
const USDC_DECIMALS = 6;
const SOL_DECIMALS = 9;
/** Longest a client keeps retrying one key after the restart. */
const RETRY_DEADLINE_MS = 120_000;

interface SwapBody {
  success: true;
  intent: string;
  reply: string;
  order: OrderView;
}

/** How one key ended after the restart, and how it got there. */
interface Retried {
  answer: HttpResult;
  attempts: number;
  /** Codes of the retryable answers on the way (409 IDEMPOTENCY_IN_PROGRESS, 429...). */
  retried: string[];
}

const swap = (client: Client, key: string) => client.post('/api/nest/trading/command', { message: SWAP }, { 'x-idempotency-key': key });

/** Runs `task` over `items` with at most `width` at a time, in order, until `stop()` says so. */
async function pool<T>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (!stop() && next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: width }, lane));
}

/** Retries `key` with the same body until a final answer (anything but 409, 429, 503). */
async function untilFinal(client: Client, key: string): Promise<Retried> {
  const started = Date.now();
  const retried: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const answer = await swap(client, key);
    if (![409, 429, 503].includes(answer.status)) return { answer, attempts: attempt, retried };
    retried.push(`${answer.status} ${answer.body?.code ?? ''}`.trim());
    if (Date.now() - started > RETRY_DEADLINE_MS)
      throw new Error(`key ${key} still answers ${answer.status} after ${attempt} attempts: ${JSON.stringify(answer.body)}`);
    const retryAfterMs = (Number(answer.headers.get('retry-after')) || 1) * 1000;
    // From 3 s: a key leased by the dead process is free again after at most 2 more attempts (lease 10 s).
    const backoffMs = Math.min(8_000, 3_000 * 2 ** (attempt - 1));
    await sleep(Math.max(retryAfterMs, backoffMs) + Math.random() * 250);
  }
}

/** Every order of the account, following the pages. */
async function allOrders(client: Client, userId: string): Promise<OrderView[]> {
  const orders: OrderView[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.get<{ items: OrderView[]; nextCursor?: string }>(
      `/api/nest/trading/orders/${userId}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status).toBe(200);
    orders.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return orders;
}

/** Every document of a collection of a stopped service's embedded store. */
async function collectionOf<T>(store: LmdbStore, name: string): Promise<StoredDocument<T>[]> {
  const docs: StoredDocument<T>[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list<T>(name, { limit: 1000, ...(cursor ? { cursor } : {}) });
    docs.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return docs;
}

const sum = (values: Iterable<bigint>) => [...values].reduce((total, value) => total + value, 0n);
const count = <T>(values: readonly T[]) =>
  values.reduce((counts, value) => counts.set(value, (counts.get(value) ?? 0) + 1), new Map<T, number>());

describe('trading crash recovery (SIGKILL mid-burst of guarded swaps)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trading-crash-'));
  const env = { DATA_DIR: dataDir, PUBLIC_URL };
  const children: ServiceProcess[] = [];
  const start = async () => {
    const child = await ServiceProcess.start(env);
    children.push(child);
    return child;
  };

  afterAll(async () => {
    // Even on failure: no child outlives the test, and the data dir goes.
    await Promise.all(children.filter((c) => c.child.exitCode === null && c.child.signalCode === null).map((c) => c.kill()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged swap exactly once and executes none twice after SIGKILL and client retries', async () => {
    // --- set-up: operator, agent with trading on, funded custodial wallet ---
    const first = await start();
    const wallet = solanaWallet();
    const http = new Client(first.url);
    const { user } = await signInSolana(http, wallet);
    const userId = user.id;
    const agent = await http.post('/api/nest/agents', { name: 'crash-trader' });
    expect(agent.status).toBe(201);
    const agentId = agent.body.agentId as string;
    expect((await http.put(`/api/nest/agents/${agentId}/trading`, { enabled: true })).status).toBe(200);
    const custodial = await http.post(`/api/nest/trading/wallets/custodial/${userId}`, {}, { 'x-idempotency-key': randomUUID() });
    expect(custodial.status).toBeLessThan(300);
    const address = custodial.body.address as string;
    const faucet = (token: string, amount: bigint) =>
      http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'solana', token, amount: amount.toString() });
    expect(await faucet('USDC', USDC_FUNDS)).toMatchObject({ status: 200, body: { balance: USDC_FUNDS.toString() } });
    expect(await faucet('SOL', SOL_FUNDS)).toMatchObject({ status: 200, body: { balance: SOL_FUNDS.toString() } });

    // --- the burst: 200 swaps, each with its own key; SIGKILL once half are acknowledged ---
    const keys = Array.from({ length: SWAPS }, () => randomUUID());
    const acked = new Map<string, SwapBody>();
    const refused = new Map<string, string>(); // answered without an order (e.g. a retryable 409)
    const sent = new Set<string>();
    let killed = false;
    await pool(
      keys,
      CONNECTIONS,
      async (key) => {
        sent.add(key);
        try {
          const answer = await swap(http, key);
          if (answer.status === 200 && answer.body?.order) acked.set(key, answer.body as SwapBody);
          else refused.set(key, `${answer.status} ${answer.body?.message ?? JSON.stringify(answer.body)}`);
        } catch {
          return; // the connection died with the process: no answer
        }
        if (!killed && acked.size >= KILL_AFTER) {
          killed = true;
          void first.kill();
        }
      },
      () => killed,
    );
    if (!killed) void first.kill(); // everything answered before the threshold: still end the process
    await first.exited;
    const killedAt = Date.now();
    const inFlight = [...sent].filter((key) => !acked.has(key) && !refused.has(key));
    const notSent = keys.filter((key) => !sent.has(key));
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(inFlight.length).toBeGreaterThan(0); // the kill really happened mid-burst ...
    expect(notSent.length).toBeGreaterThan(0); // ... before every swap was even sent
    for (const body of acked.values()) expect(body.order.status).toBe('filled');

    // --- restart on the same DATA_DIR; the client retries all 200 keys with the same body ---
    const second = await start();
    const restartMs = Date.now() - killedAt;
    const client = new Client(second.url);
    await signInSolana(client, wallet); // same wallet, same user
    const retryStarted = Date.now();
    const finals = new Map<string, Retried>();
    await pool(keys, CONNECTIONS, async (key) => {
      finals.set(key, await untilFinal(client, key));
    });
    const retryMs = Date.now() - retryStarted;
    const listed = await allOrders(client, userId);
    const positions = await client.get(`/api/nest/trading/positions/${userId}`);

    const subject = { type: 'agent', id: agentId } as OperationContext['subject'];
    const orderIdOf = (key: string) => keyedOrder({ subject, idempotencyKey: key } as OperationContext, 'swap', {}).orderId!;
    const placedBeforeKill = new Set(listed.filter((order) => Date.parse(order.createdAt) <= killedAt).map((order) => order.order_id));
    const retries = [...finals.values()];
    const tally = (values: string[]) => [...count(values)].map(([what, n]) => `${n}× ${what}`).join(', ') || 'none';
    console.info(
      `[trading-crash] before the kill: ${acked.size} acknowledged, ${refused.size} refused (${tally([...refused.values()])}), ` +
        `${inFlight.length} in flight (${inFlight.filter((key) => placedBeforeKill.has(orderIdOf(key))).length} with an order placed), ${notSent.length} not sent; ` +
        `restarted in ${restartMs} ms; retries: ${retries.reduce((n, r) => n + r.attempts, 0)} requests in ${retryMs} ms, ` +
        `${retries.filter((r) => r.retried.length > 0).length} keys answered first with ${tally(retries.flatMap((r) => r.retried))}`,
    );

    // Every key ends with a filled order, under the order id its key derives.
    for (const key of keys) {
      const { answer } = finals.get(key)!;
      expect({ key, status: answer.status, body: answer.body }).toMatchObject({
        key,
        status: 200,
        body: { success: true, order: { status: 'filled' } },
      });
      expect(answer.body.order.order_id).toBe(orderIdOf(key));
    }
    // An acknowledged swap is answered again as acknowledged: a replay of the same answer, the same order.
    for (const [key, body] of acked) {
      const { answer } = finals.get(key)!;
      expect(answer.headers.get('idempotent-replayed')).toBe('true');
      expect(answer.body).toEqual(body);
    }
    const finalOrders = new Map(keys.map((key) => [orderIdOf(key), finals.get(key)!.answer.body.order as OrderView]));
    expect(finalOrders.size).toBe(SWAPS);

    // The account has exactly these 200 orders: none placed twice, none lost, all filled as answered.
    expect([...count(listed.map((order) => order.order_id))].filter(([, n]) => n > 1)).toEqual([]);
    expect(listed).toHaveLength(SWAPS);
    expect(new Set(listed.map((order) => order.order_id))).toEqual(new Set(finalOrders.keys()));
    for (const order of listed) {
      expect(order).toMatchObject({
        status: 'filled',
        inputMint: USDC,
        outputMint: SOL,
        amountIn: '1000000',
        filledOut: finalOrders.get(order.order_id)!.filledOut,
      });
    }
    const usdcLeft = USDC_FUNDS * 10n ** BigInt(USDC_DECIMALS) - BigInt(SWAPS) * 1_000_000n;
    const solHeld = SOL_FUNDS * 10n ** BigInt(SOL_DECIMALS) + sum(listed.map((order) => BigInt(order.filledOut!)));

    // --- the venue, read from the stopped service's store ---
    await second.stop();
    const store = new LmdbStore({ path: join(dataDir, 'store'), clock: new SystemClock(), sweepIntervalMs: 3_600_000 });
    try {
      await store.init(PAPER_COLLECTIONS);
      // One fill per order and none for anything else: no swap executed twice, or under another id.
      const fills = await collectionOf<FillDoc>(store, FILLS_COLLECTION);
      expect(fills.map((fill) => fill.id).sort()).toEqual([...finalOrders.keys()].sort());
      for (const fill of fills) {
        expect(fill.data).toMatchObject({
          clientOrderId: fill.id,
          amountIn: '1000000',
          outcome: { status: 'filled', filledOut: finalOrders.get(fill.id)!.filledOut },
        });
      }
      // The wallet's balances moved by exactly the 200 fills, each applied once.
      const balances = await store.get<BalanceDoc>(BALANCES_COLLECTION, `solana:${address}`);
      expect(balances?.data.balances).toEqual({ [USDC]: usdcLeft.toString(), [SOL]: solHeld.toString() });
      const applied = ringIds(balances!.data.appliedRing);
      expect(applied).toHaveLength(SWAPS);
      expect(new Set(applied)).toEqual(new Set(finalOrders.keys()));
      expect(balances!.data.rejectedRing).toBe('');
    } finally {
      await store.close();
    }

    // The service's own book agrees with the venue: USDC down by exactly 200 × 1, SOL up by exactly the fills.
    expect(positions.status).toBe(200);
    const held = Object.fromEntries(positions.body.positions.map((p: { symbol: string; amount: string }) => [p.symbol, p.amount]));
    expect(held, 'positions must book each fill once').toEqual({
      USDC: fromBaseUnits(usdcLeft, USDC_DECIMALS),
      SOL: fromBaseUnits(solHeld, SOL_DECIMALS),
    });
  }, 300_000);
});
