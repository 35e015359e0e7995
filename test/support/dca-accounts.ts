/**
 * DCA test helpers shared by the BullMQ, two-process and restart suites: a
 * funded trading account behind any service URL (in-process or a child process), and
 * readers that page through orders and strategies.
 */
import { randomUUID } from 'node:crypto';
import { Client, scrapeMetrics, signInSolana, solanaWallet } from './test-service.js';

export interface DcaTrader {
  client: Client;
  userId: string;
  agentId: string;
  wallet: ReturnType<typeof solanaWallet>;
}

/** Signs in a fresh wallet, creates an agent with trading on, a custodial wallet and `faucet` paper USDC. */
export async function setUpDcaTrader(url: string, faucet = '100000'): Promise<DcaTrader> {
  const client = new Client(url);
  const wallet = solanaWallet();
  const login = await signInSolana(client, wallet);
  const agent = await client.post('/api/nest/agents', { name: 'dca' });
  if (agent.status !== 201) throw new Error(`agent creation failed: ${agent.status} ${JSON.stringify(agent.body)}`);
  const trading = await client.put(`/api/nest/agents/${agent.body.agentId}/trading`, { enabled: true });
  if (trading.status !== 200) throw new Error(`enable trading failed: ${trading.status} ${JSON.stringify(trading.body)}`);
  const custodial = await client.post(`/api/nest/trading/wallets/custodial/${login.user.id}`, {}, { 'x-idempotency-key': randomUUID() });
  if (custodial.status >= 300) throw new Error(`custodial wallet failed: ${custodial.status} ${JSON.stringify(custodial.body)}`);
  const funded = await client.post(`/api/nest/trading/paper/faucet/${login.user.id}`, { chain: 'solana', token: 'USDC', amount: faucet });
  if (funded.status >= 300) throw new Error(`faucet failed: ${funded.status} ${JSON.stringify(funded.body)}`);
  return { client, userId: login.user.id, agentId: agent.body.agentId, wallet };
}

/** Creates a USDC→SOL strategy and answers its view (throws on anything but 201). */
export async function createDcaStrategy(
  trader: DcaTrader,
  name: string,
  interval: string,
  amount = '1',
): Promise<{ strategyId: string; name: string; status: string; createdAt: string }> {
  const created = await trader.client.post(`/api/nest/trading/strategies/${trader.userId}`, {
    name,
    inputToken: 'USDC',
    outputToken: 'SOL',
    amount,
    interval,
  });
  if (created.status !== 201) throw new Error(`strategy ${name} creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

/** The due time (epoch ms) of the tick a DCA order was placed for: the order keeps it (its id is derived, never parsed). */
export function dueAtOf(order: { orderId: string; tickDueAt?: number }): number {
  if (order.tickDueAt === undefined) throw new Error(`not a DCA tick's order: ${order.orderId}`);
  return order.tickDueAt;
}

/** The strategy a DCA order was placed for ('' for any other order). */
export function strategyIdOf(order: { strategyId?: string }): string {
  return order.strategyId ?? '';
}

/** Every actor of `type` through the ops inspection route (ops token, no session budget). */
export async function opsActors<C>(
  url: string,
  opsToken: string,
  type: string,
  state?: string,
): Promise<Array<{ id: string; state: unknown; context: C; version: number }>> {
  const out: Array<{ id: string; state: unknown; context: C; version: number }> = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '200', ...(state ? { state } : {}), ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${url}/api/nest/ops/actors/${type}?${query}`, { headers: { authorization: `Bearer ${opsToken}` } });
    if (!response.ok) throw new Error(`ops list ${type}: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as {
      items: Array<{ id: string; state: unknown; context: C; version: number }>;
      nextCursor?: string;
    };
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** Gaps (ms) between consecutive due times of one strategy. */
export function gaps(dueAts: number[]): number[] {
  return dueAts.slice(1).map((t, i) => t - dueAts[i]!);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface CreatedStrategy {
  trader: DcaTrader;
  name: string;
  strategyId: string;
  /** Epoch ms, as the strategy says. */
  createdAt: number;
  /** Epoch ms when the create call answered: its schedule was registered by then. */
  respondedAt: number;
}

/**
 * `perTrader` strategies for each trader (names `<prefix><trader>-<n>`), the traders in
 * parallel and each at most `concurrency` at a time (its session budget is 300 a minute).
 */
export async function createStrategies(
  traders: DcaTrader[],
  perTrader: number,
  interval: string,
  options: { prefix?: string; amount?: string; concurrency?: number } = {},
): Promise<CreatedStrategy[]> {
  const { prefix = 's', amount = '1', concurrency = 4 } = options;
  const perTraderResults = await Promise.all(
    traders.map(async (trader, t) => {
      const out: CreatedStrategy[] = [];
      let next = 0;
      const worker = async () => {
        while (next < perTrader) {
          const name = `${prefix}${t}-${next++}`;
          const view = await createDcaStrategy(trader, name, interval, amount);
          out.push({ trader, name, strategyId: view.strategyId, createdAt: Date.parse(view.createdAt), respondedAt: Date.now() });
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, perTrader) }, worker));
      return out;
    }),
  );
  return perTraderResults.flat();
}

/** Whole USDC the trader's paper wallet holds (from its positions). */
export async function usdcHeld(trader: DcaTrader): Promise<string | undefined> {
  const positions = await trader.client.get(`/api/nest/trading/positions/${trader.userId}`);
  if (positions.status !== 200) throw new Error(`positions failed: ${positions.status} ${JSON.stringify(positions.body)}`);
  return (positions.body.positions as Array<{ symbol: string; amount: string }>).find((p) => p.symbol === 'USDC')?.amount;
}

/**
 * Store writes so far (puts and commits, from the service's own metrics): a process that ticks
 * writes; a tick that fills at once is one commit and no put.
 */
export async function storeWrites(svc: { url: string; opsToken: string }): Promise<number> {
  const text = await scrapeMetrics(svc);
  const count = (operation: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`store_operation_duration_seconds_count{operation="${operation}"}`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  return count('put') + count('commit');
}

/** p-th percentile (0..100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One executed tick of a strategy: its due time and when its order was created. */
export interface TickOrder {
  dueAt: number;
  createdAt: number;
}

export interface TickCheck {
  problems: string[];
  /** Seconds with no run because the run before was picked up late (BullMQ collapses them). */
  collapsed: number;
  /** Seconds with no run that `excuse` accepted. */
  excused: number;
  maxGap: number;
}

/**
 * The ticks of one strategy on a one-interval grid: each due time on the grid and once, and
 * every run in between accounted for. A BullMQ job scheduler creates its next run when a
 * worker picks up the current one, at the first grid point after that moment; so when a
 * run is picked up late the grid points it overslept are never run (collapsed, as after
 * downtime). Such a gap d1 → d2 is explained when the order of d1 was created at or after
 * d2 − interval (it was created after the pickup, and the pickup was at or after
 * d2 − interval). A gap whose previous run was on time is a lost tick, unless `excuse`
 * accepts each missing due time (e.g. runs that died with a killed process).
 */
export function checkTicks(ticks: TickOrder[], intervalMs: number, excuse: (dueAt: number) => boolean = () => false): TickCheck {
  const sorted = [...ticks].sort((a, b) => a.dueAt - b.dueAt);
  const problems: string[] = [];
  let collapsed = 0;
  let excused = 0;
  let maxGap = 0;
  if (new Set(sorted.map((t) => t.dueAt)).size !== sorted.length) problems.push('a tick ran twice');
  if (sorted.some((t) => t.dueAt % intervalMs !== 0)) problems.push('a due time off the grid');
  for (let i = 1; i < sorted.length; i++) {
    const [before, after] = [sorted[i - 1]!, sorted[i]!];
    const gap = after.dueAt - before.dueAt;
    maxGap = Math.max(maxGap, gap);
    if (gap <= intervalMs) continue;
    const missing = Array.from({ length: gap / intervalMs - 1 }, (_, k) => before.dueAt + (k + 1) * intervalMs);
    if (before.createdAt >= after.dueAt - intervalMs) collapsed += missing.length;
    else if (missing.every(excuse)) excused += missing.length;
    else
      problems.push(
        `lost tick(s) ${missing.join(', ')}: the run due ${before.dueAt} was created ${before.createdAt - before.dueAt} ms after it was due, on time for the next`,
      );
  }
  return { problems, collapsed, excused, maxGap };
}

/** The trader's session on another process (same bearer and CSRF token, another base URL). */
export function via(trader: DcaTrader, url: string): DcaTrader {
  const client = new Client(url);
  client.bearer = trader.client.bearer;
  client.csrf = trader.client.csrf;
  return { ...trader, client };
}
