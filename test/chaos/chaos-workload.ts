/**
 * The chaos run's workload, all through the balancer: operators with agents (trading on, a
 * funded custodial wallet, a trade key and a read key; one agent per operator may withdraw),
 * DCA strategies, agents swapping over MCP and REST by turns and withdrawing on the paper
 * chain, each request under its own idempotency key and retried with it until final.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair } from '@solana/web3.js';
import { derivedOrderId } from '../../kernel/vocabulary/ids.js';
import { solanaClaim } from '../support/claim-messages.js';
import { Operator } from '../support/mcp-fixtures.js';
import { codeAt, stoppedClock } from '../support/totp-codes.js';
import { exchange, toolResult, untilFinal } from './chaos-http.js';
import type { AnswerRecord, KeyedRequest } from './chaos-invariants.js';

export interface ChaosAgent {
  operator: Operator;
  agentId: string;
  publicId: string;
  tradeKey: string;
  readKey: string;
  address: string;
  withdraws: boolean;
  /** Balances (base units by mint) after funding, before any trade. */
  funded: Record<string, string>;
}

/** Whole USDC the faucet gives each agent: enough for every swap, tick and withdrawal of a run. */
const FAUCET_USDC = '1000000';
/** One USDC in base units: each swap and each withdrawal moves this much. */
const ONE_USDC = '1000000';

/**
 * A set-up call that must succeed; refused by a budget or a dependency (429, 503: nothing was
 * done) it is sent again, as a client would, a few times.
 */
async function ok<T = any>(what: string, send: () => Promise<{ status: number; body: T }>, want = [200, 201]): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const { status, body } = await send();
    if (want.includes(status)) return body;
    if (![429, 503].includes(status) || attempt >= 6) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
    await sleep(500 * attempt);
  }
}

/** One operator and its agents; the first agent withdraws (its operator claimed it and switched withdrawals on). */
export async function setUpOperator(base: string, agents: number): Promise<ChaosAgent[]> {
  const operator = await Operator.signIn({ url: base });
  const http = operator.client;
  const out: ChaosAgent[] = [];
  for (let i = 0; i < agents; i++) {
    const { agentId, publicId } = await operator.agent(`chaos-${i}`);
    await ok('trading on', async () => http.put(`/api/nest/agents/${agentId}/trading`, { enabled: true }));
    const wallet = await ok('custodial wallet', async () =>
      http.post(`/api/nest/trading/wallets/custodial/${operator.userId}?agentId=${agentId}`, {}, { 'x-idempotency-key': randomUUID() }),
    );
    await ok('faucet', async () =>
      http.post(`/api/nest/trading/paper/faucet/${operator.userId}`, { chain: 'solana', token: 'USDC', amount: FAUCET_USDC, agentId }),
    );
    const tradeKey = (await operator.agentKey(agentId, 'trade', 'chaos-trade')).secret;
    const readKey = (await operator.agentKey(agentId, 'read', 'chaos-read')).secret;
    const balance = await ok('balance', async () =>
      fetch(`${base}/api/nest/agents/wallet/balance`, { headers: { authorization: `Bearer ${tradeKey}` } }).then(async (r) => ({
        status: r.status,
        body: await r.json(),
      })),
    );
    const solana = (balance.wallets as Array<{ chain: string; tokens: Array<{ mint: string; amount: string }> }>).find(
      (w) => w.chain === 'solana',
    )!;
    const funded = Object.fromEntries(solana.tokens.map((t) => [t.mint, t.amount]));
    out.push({ operator, agentId, publicId, tradeKey, readKey, address: wallet.address, withdraws: i === 0, funded });
  }
  // Withdrawals: the claim, an authenticator, one step-up token, then the switch.
  const withdrawing = out[0]!;
  await ok('claim', async () =>
    http.post(`/api/nest/agents/${withdrawing.agentId}/control/claim`, await solanaClaim(http, operator.wallet, withdrawing.agentId)),
  );
  const clock = stoppedClock();
  const secret = (await ok('totp enroll', async () => http.post('/api/nest/auth/totp/enroll'))).secret as string;
  await ok('totp activate', async () => http.post('/api/nest/auth/totp/activate', { code: await codeAt(secret, clock, 0) }));
  const stepUp = await ok('step-up', async () =>
    http.post(`/api/nest/agents/${withdrawing.agentId}/control/mcp/step-up`, { code: await codeAt(secret, clock, 1) }),
  );
  await ok('withdrawals on', async () =>
    http.request(
      'PUT',
      `/api/nest/agents/${withdrawing.agentId}/control/withdraw`,
      { enabled: true },
      { 'x-step-up-token': stepUp.stepUpToken },
    ),
  );
  return out;
}

/** `perAgent` USDC→SOL strategies of one USDC on each agent, every `everySeconds`; answers their ids. */
export async function createStrategies(agents: ChaosAgent[], perAgent: number, everySeconds: number): Promise<string[]> {
  const interval = everySeconds >= 60 ? '0 * * * * *' : `*/${everySeconds} * * * * *`;
  const ids: string[] = [];
  await Promise.all(
    agents.map(async (agent) => {
      for (let n = 0; n < perAgent; n++) {
        const body = await ok(
          'strategy',
          async () =>
            agent.operator.client.post(`/api/nest/trading/strategies/${agent.operator.userId}`, {
              name: `chaos-${agent.agentId.slice(-8)}-${n}`,
              inputToken: 'USDC',
              outputToken: 'SOL',
              amount: '1',
              interval,
              agentId: agent.agentId,
            }),
          [201],
        );
        ids.push(body.strategyId as string);
      }
    }),
  );
  return ids;
}

/** Pauses every strategy of the agents (the schedulers stop making runs). */
export async function pauseStrategies(agents: ChaosAgent[]): Promise<void> {
  for (const agent of agents) {
    await ok('dca pause', async () =>
      agent.operator.client.post(`/api/nest/trading/dca/pause/${agent.operator.userId}`, { agentId: agent.agentId }),
    );
  }
}

export interface WorkloadRecords {
  answers: AnswerRecord[];
  swaps: KeyedRequest[];
  withdrawals: KeyedRequest[];
}

/**
 * One agent's loop until `running()` says stop: a swap every `swapEveryMs` (REST and MCP by
 * turns) and, for a withdrawing agent, a withdrawal every `withdrawEveryMs` (likewise). A key is
 * retried until final or `deadline()`.
 */
export async function agentLoop(
  base: string,
  agent: ChaosAgent,
  records: WorkloadRecords,
  options: { swapEveryMs: number; withdrawEveryMs: number; running: () => boolean; deadline: () => number },
): Promise<void> {
  const to = Keypair.generate().publicKey.toBase58();
  let turn = Math.random() < 0.5 ? 0 : 1;
  let nextWithdrawal = Date.now() + Math.random() * options.withdrawEveryMs;
  while (options.running()) {
    const viaMcp = turn++ % 2 === 1;
    if (agent.withdraws && Date.now() >= nextWithdrawal) {
      nextWithdrawal = Date.now() + options.withdrawEveryMs * (0.5 + Math.random());
      await withdraw(base, agent, records, viaMcp, to, options.deadline);
    } else {
      await swap(base, agent, records, viaMcp, options.deadline);
    }
    await sleep(options.swapEveryMs * (0.5 + Math.random()));
  }
}

async function swap(base: string, agent: ChaosAgent, records: WorkloadRecords, viaMcp: boolean, deadline: () => number) {
  const key = randomUUID();
  const request: KeyedRequest = { agentId: agent.agentId, key, derivedId: derivedOrderId(`agent:${agent.agentId}|${key}`) };
  records.swaps.push(request);
  if (viaMcp) {
    const answer = await untilFinal(
      () =>
        exchange(records.answers, 'mcp', 'swap', `${base}/mcp/${agent.publicId}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agent.tradeKey}`, accept: 'application/json, text/event-stream' },
          body: {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'trading_solana_aggregator_swap',
              arguments: { inputMint: 'USDC', outputMint: 'SOL', amount: ONE_USDC, slippageBps: 300, idempotencyKey: key },
            },
          },
        }),
      deadline(),
    );
    const order = answer.status === 200 ? toolResult(answer.body) : undefined;
    if (order?.order_id) Object.assign(request, { ackedId: order.order_id, ackedStatus: order.status });
    return;
  }
  const answer = await untilFinal(
    () =>
      exchange(records.answers, 'rest', 'swap', `${base}/api/nest/trading/command`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${agent.operator.client.bearer}`,
          'x-csrf-token': agent.operator.client.csrf!,
          'x-idempotency-key': key,
        },
        body: { message: 'swap 1 USDC to SOL with 3% slippage', agentId: agent.agentId },
      }),
    deadline(),
  );
  const order = answer.status === 200 && answer.body?.success ? answer.body.order : undefined;
  if (order?.order_id) Object.assign(request, { ackedId: order.order_id, ackedStatus: order.status });
}

async function withdraw(base: string, agent: ChaosAgent, records: WorkloadRecords, viaMcp: boolean, to: string, deadline: () => number) {
  const key = randomUUID();
  const request: KeyedRequest = { agentId: agent.agentId, key };
  records.withdrawals.push(request);
  const fields = { mint: 'USDC', amount: ONE_USDC, to };
  const answer = await untilFinal(
    () =>
      viaMcp
        ? exchange(records.answers, 'mcp', 'withdraw', `${base}/mcp/${agent.publicId}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${agent.tradeKey}`, accept: 'application/json, text/event-stream' },
            body: {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'agent_wallet_withdraw_solana', arguments: { ...fields, idempotencyKey: key } },
            },
          })
        : exchange(records.answers, 'rest', 'withdraw', `${base}/api/nest/agents/wallet/withdraw/solana`, {
            method: 'POST',
            headers: { authorization: `Bearer ${agent.tradeKey}`, 'x-idempotency-key': key },
            body: fields,
          }),
    deadline(),
  );
  const withdrawal = viaMcp
    ? answer.status === 200
      ? toolResult(answer.body)
      : undefined
    : answer.status === 201
      ? answer.body
      : undefined;
  if (withdrawal?.withdrawalId) Object.assign(request, { ackedId: withdrawal.withdrawalId, ackedStatus: withdrawal.status });
}
