/**
 * Store and actor calls per request, counted on a started service (embedded profile, in this
 * process): what one REST EVM swap, MCP swap, DCA tick, withdrawal, widget chat and REST
 * command cost in reads and writes. The bench prints the table; a test holds each flow under
 * its ceiling, so a layer that starts reading the same record again fails it.
 *
 * Counting wraps the service's own store object and actor runtime in place (every module holds
 * those same objects), so nothing in the service knows it is counted. Counts are deterministic:
 * each flow runs alone on a quiet service, after what it started has settled (mailboxes
 * drained, the audit trail flushed), and the counting stops only once its own work has too.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair } from '@solana/web3.js';
import { solanaClaim } from './claim-messages.js';
import { bearer, Operator, rawRpc } from './mcp-fixtures.js';
import { codeAt } from './totp-codes.js';
import { Client, startTestService, type TestService } from './test-service.js';
import { ManualClock } from './manual-clock.adapter.js';

export const FLOWS = ['REST EVM swap', 'MCP swap', 'DCA tick', 'withdrawal', 'widget chat', 'REST command'] as const;
export type FlowName = (typeof FLOWS)[number];

const STORE_CALLS = ['get', 'find', 'list', 'put', 'commit', 'delete', 'readJournal'] as const;
const ACTOR_CALLS = ['get', 'find', 'count', 'create', 'send'] as const;

/** Calls of one flow: by kind (`store get`, `actor send`...) and by kind and collection or actor type. */
export interface FlowCount {
  total: number;
  byKind: Record<string, number>;
  byTarget: Record<string, number>;
}

class CallCounter {
  private byKind = new Map<string, number>();
  private byTarget = new Map<string, number>();

  hit(kind: string, target: string): void {
    if (TRACE && (TRACE === '*' || `${kind} ${target}` === TRACE))
      console.log(`${kind} ${target}\n${new Error().stack?.split('\n').slice(3, 14).join('\n')}`);
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    const key = `${kind} ${target}`;
    this.byTarget.set(key, (this.byTarget.get(key) ?? 0) + 1);
  }

  take(): FlowCount {
    const byKind = Object.fromEntries(this.byKind);
    const byTarget = Object.fromEntries([...this.byTarget].sort(([a], [b]) => a.localeCompare(b)));
    const total = [...this.byKind.values()].reduce((sum, n) => sum + n, 0);
    this.byKind.clear();
    this.byTarget.clear();
    return { total, byKind, byTarget };
  }
}

/** Wraps the service's store and runtime methods in place with the counter. */
function instrument(svc: TestService, counter: CallCounter): void {
  const store = svc.service.adapters.store as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const op of STORE_CALLS) {
    const inner = store[op]!;
    store[op] = (...args: unknown[]) => {
      counter.hit(`store ${op}`, op === 'commit' ? commitTargets(args[0]) : String(args[0]));
      return inner.apply(store, args);
    };
  }
  const runtime = svc.service.runtime as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const op of ACTOR_CALLS) {
    const inner = runtime[op]!.bind(runtime);
    runtime[op] = (...args: unknown[]) => {
      const first = args[0];
      counter.hit(`actor ${op}`, typeof first === 'string' ? first : String((first as { type?: unknown }).type));
      return inner(...args);
    };
  }
}

const commitTargets = (writes: unknown): string =>
  [...new Set((writes as Array<{ collection: string }>).map((write) => write.collection))].sort().join('+') || '(empty)';

/** A service with one trading account ready for every flow; `run` counts one flow. */
export interface StoreCallBench {
  run(flow: FlowName): Promise<FlowCount>;
  stop(): Promise<void>;
}

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SITE = 'https://shop.example.com';
const SETTLE_MS = 30;
/** BENCH_TRACE='actor get agent' prints where each such call comes from (to find a repeated read); '*' every call. */
const TRACE = process.env.BENCH_TRACE;
const COLD_CACHE_MS = 31_000;

export async function startStoreCallBench(): Promise<StoreCallBench> {
  const clock = new ManualClock(Date.now());
  const svc = await startTestService({ clock, discardLogs: true });
  const counter = new CallCounter();
  const operator = await Operator.signIn(svc);
  const http = operator.client;
  const { userId } = operator;
  const agent = await operator.agent('counted');
  const must = async (what: string, answer: Promise<{ status: number; body: unknown }>) => {
    const { status, body } = await answer;
    if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
    return body as any;
  };
  const idem = () => ({ 'x-idempotency-key': randomUUID() });
  const q = `?agentId=${agent.agentId}`;
  await must('trading on', http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true }));
  await must('solana wallet', http.post(`/api/nest/trading/wallets/custodial/${userId}${q}`, {}, idem()));
  await must('evm wallet', http.post(`/api/nest/trading/evm/wallets/${userId}/custodial${q}`, {}, idem()));
  for (const [chain, token, amount] of [
    ['solana', 'USDC', '100000'],
    ['solana', 'SOL', '100'],
    ['base', 'ETH', '10'],
  ] as const)
    await must(`faucet ${token}`, http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain, token, amount, agentId: agent.agentId }));
  const tradeKey = (await operator.agentKey(agent.agentId, 'trade')).secret;

  // Withdrawals: the owner claims the agent, and switches them on (allowlist, cap) with a step-up token.
  const to = Keypair.generate().publicKey.toBase58();
  await must(
    'claim',
    http.post(`/api/nest/agents/${agent.agentId}/control/claim`, await solanaClaim(http, operator.wallet, agent.agentId)),
  );
  const enrolled = await must('totp', http.post('/api/nest/auth/totp/enroll'));
  await must('totp on', http.post('/api/nest/auth/totp/activate', { code: await codeAt(enrolled.secret, clock, 0) }));
  const stepUp = await must(
    'step-up',
    http.post(`/api/nest/agents/${agent.agentId}/control/mcp/step-up`, { code: await codeAt(enrolled.secret, clock, 1) }),
  );
  await must(
    'withdraw settings',
    http.request(
      'PUT',
      `/api/nest/agents/${agent.agentId}/control/withdraw`,
      { enabled: true, allowlist: [to], dailyCapUsd: 1000 },
      {
        'x-step-up-token': stepUp.stepUpToken,
      },
    ),
  );

  // DCA: a strategy whose next tick is an hour away (the scheduler stays quiet); the bench delivers a tick itself.
  const strategy = await must(
    'strategy',
    http.post(`/api/nest/trading/strategies/${userId}${q}`, {
      name: 'counted',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 1 hours',
    }),
  );

  // Widget: a legacy bot of the same owner, its widget open to one site, one session.
  const botId = (await must('bot', http.post('/api/nest/bots', { name: 'Shop bot' }))).id as string;
  await must('widget config', http.put(`/api/nest/bots/${botId}/widget-config`, { allowedOrigins: [SITE] }));
  const widgetToken = (await must('widget init', new Client(svc.url).post(`/api/widget/${botId}/init`, {}, { origin: SITE }))).sessionToken;

  let rpcId = 0;
  let tick = 0;
  const flows: Record<FlowName, () => Promise<unknown>> = {
    'REST EVM swap': () =>
      must(
        'evm swap',
        http.post(
          `/api/nest/trading/evm/swap/${userId}${q}`,
          { chainId: 8453, sellToken: 'ETH', buyToken: 'USDC', sellAmount: '1000000000000000' },
          idem(),
        ),
      ),
    'MCP swap': async () => {
      const answer = await rawRpc(
        svc.url,
        agent.publicId,
        {
          jsonrpc: '2.0',
          id: ++rpcId,
          method: 'tools/call',
          params: {
            name: 'trading_solana_aggregator_swap',
            arguments: {
              inputMint: USDC,
              outputMint: 'So11111111111111111111111111111111111111112',
              amount: '1000000',
              idempotencyKey: randomUUID(),
            },
          },
        },
        bearer(tradeKey),
      );
      const result = (answer.body as { result?: { isError?: boolean } }).result;
      if (!result || result.isError) throw new Error(`mcp swap: ${JSON.stringify(answer.body)}`);
    },
    'DCA tick': () =>
      svc.service.dueJobs.deliver({
        id: `dca:${strategy.strategyId}`,
        kind: 'repeat',
        address: { type: 'dca-strategy', id: strategy.strategyId },
        event: { type: 'dca.tick' },
        // Each run a new due time: a tick already handled would buy nothing.
        dueAt: clock.now() + ++tick,
      }),
    withdrawal: () =>
      must(
        'withdrawal',
        fetch(`${svc.url}/api/nest/agents/wallet/withdraw/solana`, {
          method: 'POST',
          headers: { ...bearer(tradeKey), 'content-type': 'application/json', ...idem() },
          body: JSON.stringify({ mint: 'USDC', amount: '1000000', to }),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    'widget chat': () =>
      must(
        'widget chat',
        new Client(svc.url).post(
          `/api/widget/${botId}/chat`,
          { message: 'status' },
          { origin: SITE, authorization: `Bearer ${widgetToken}` },
        ),
      ),
    'REST command': () =>
      must('command', http.post('/api/nest/trading/command', { message: 'swap 1 USDC to SOL', agentId: agent.agentId }, idem())),
  };

  // A server may still write after its answer left (the audit entry, a durable event): a pause
  // lets that work start, then it is waited for, before the count is taken or reset.
  const settle = async () => {
    await svc.service.runtime.settled();
    await sleep(SETTLE_MS);
    await svc.service.runtime.settled();
    await svc.service.operations.audit.flush();
  };
  // Every flow meets cold caches (kill switch, credentials, scope caps, MCP targets: 30 s at
  // most), as a request after a quiet spell does: what it costs at worst, the same every run.
  // BENCH_WARM=1: no quiet spell before a flow (a client's next call soon after its last), for comparison.
  const coldCaches = () => (process.env.BENCH_WARM === '1' ? undefined : clock.advance(COLD_CACHE_MS));
  instrument(svc, counter);
  return {
    async run(flow) {
      await settle();
      await coldCaches();
      await settle();
      counter.take();
      await flows[flow]();
      await settle();
      return counter.take();
    },
    stop: () => svc.stop(),
  };
}
