/**
 * The chaos run's verdict: what the clients recorded (every answer, every acknowledged order
 * and withdrawal, every SSE event id) set against what the store holds at the end. Pure: no
 * I/O, so each invariant is shown to fail on purpose in its unit test.
 */

/**
 * One HTTP exchange as a client saw it. `none`: the connection was cut before any answer;
 * `timeout`: the client gave up waiting (counted and printed, not an answer).
 */
export interface AnswerRecord {
  /** Epoch ms the request was sent and answered (or cut). */
  sentAt: number;
  at: number;
  via: 'rest' | 'mcp' | 'sse';
  what: string;
  status: number | 'none' | 'timeout';
  /** The error code of a refusal (REST `code`, MCP `structuredContent.code`). */
  code?: string;
}

/** A request the clients sent under an idempotency key, and the id its answer named (if any). */
export interface KeyedRequest {
  agentId: string;
  key: string;
  /** The id the service derives from the agent and the key (orders), when the client can know it. */
  derivedId?: string;
  /** Set once a 2xx answer named the order or withdrawal: acknowledged. */
  ackedId?: string;
  ackedStatus?: string;
}

export interface StoredOrder {
  orderId: string;
  agentId: string;
  channel: string;
  status: string;
  walletAddress: string;
  inputMint: string;
  outputMint: string;
  amountIn: string;
  filledOut?: string;
  strategyId?: string;
  tickDueAt?: number;
  /** Epoch ms. */
  createdAt: number;
}

export interface StoredWithdrawal {
  withdrawalId: string;
  agentId: string;
  status: string;
  from: string;
  token: string;
  amount: string;
  txSignature?: string;
}

/** A fill of the paper venue (`paper.fills`), keyed by the order it executed. */
export interface StoredFill {
  orderId: string;
  address: string;
  inputMint: string;
  outputMint: string;
  amountIn: string;
  status: string;
  filledOut?: string;
}

/** A transfer of the paper chain (`paper.transfers`): what a withdrawal moved. */
export interface StoredTransfer {
  txSignature: string;
  from: string;
  to: string;
  token: string;
  amount: string;
}

/** A custodial wallet: what the faucet put in at set-up and what the ledger holds at the end. */
export interface WalletRecord {
  address: string;
  funded: Record<string, string>;
  balances: Record<string, string>;
}

export interface StrategyRecord {
  strategyId: string;
  intervalMs: number;
  buys: number;
  failures: number;
  skipped: number;
  /** Orders of ticks still in flight when the run ended (not yet counted either way). */
  inFlight: number;
}

export interface SseClientRecord {
  agentId: string;
  /** Event ids in the order they arrived, over every connection of the client. */
  received: number[];
  connections: number;
  /** Every id of the agent's stream at the end, from a fresh replay of the whole stream. */
  reference: number[];
}

/** When a fault was on, from its start to the moment the cluster was whole again. */
export interface FaultWindow {
  kind: 'kill' | 'redis-pause' | 'store-stall';
  from: number;
  to: number;
}

export interface ChaosRecords {
  answers: AnswerRecord[];
  swaps: KeyedRequest[];
  withdrawals: KeyedRequest[];
  orders: StoredOrder[];
  storedWithdrawals: StoredWithdrawal[];
  fills: StoredFill[];
  transfers: StoredTransfer[];
  wallets: WalletRecord[];
  strategies: StrategyRecord[];
  sse: SseClientRecord[];
  faults: FaultWindow[];
}

export interface InvariantResult {
  name: string;
  /** How many things were checked (orders, wallets, ticks, events, answers). */
  checked: number;
  violations: string[];
}

/** The 4xx statuses the interface documents. */
const DOCUMENTED_4XX: ReadonlySet<number> = new Set([400, 401, 403, 404, 409, 413, 422, 429]);
/** An answer sent within this long after a fault ended still belongs to it (it waited on the fault). */
const FAULT_GRACE_MS = 3_000;

const tally = <T>(values: Iterable<T>) => {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
};
const show = (list: string[], max = 20) => (list.length > max ? [...list.slice(0, max), `… and ${list.length - max} more`] : list);

/** Every invariant of the run, each with its count and its violations (empty: it held). */
export function checkInvariants(records: ChaosRecords): InvariantResult[] {
  return [
    ordersOnce(records),
    withdrawalsOnce(records),
    ledgerEqualsFills(records),
    dcaTicksOnce(records),
    sseNoGapNoDouble(records),
    answersAllowed(records),
  ].map((result) => ({ ...result, violations: show(result.violations) }));
}

function ordersOnce({ swaps, orders }: ChaosRecords): InvariantResult {
  const violations: string[] = [];
  const stored = tally(orders.map((o) => o.orderId));
  const byId = new Map(orders.map((o) => [o.orderId, o]));
  const acked = swaps.filter((s) => s.ackedId !== undefined);
  for (const swap of acked) {
    const n = stored.get(swap.ackedId!) ?? 0;
    if (n !== 1) violations.push(`acknowledged order ${swap.ackedId} (key ${swap.key}) is stored ${n} times`);
    const order = byId.get(swap.ackedId!);
    if (order && order.agentId !== swap.agentId)
      violations.push(`order ${swap.ackedId} acknowledged to ${swap.agentId} belongs to ${order.agentId}`);
    if (order && swap.ackedStatus === 'filled' && order.status !== 'filled')
      violations.push(`order ${swap.ackedId} was acknowledged filled but is stored ${order.status}`);
    if (swap.derivedId !== undefined && swap.ackedId !== swap.derivedId)
      violations.push(`key ${swap.key} was answered with order ${swap.ackedId}, not the one its key names (${swap.derivedId})`);
  }
  // A request order the clients never asked for under any key: executed outside every request, or twice under another id.
  const asked = new Set(swaps.flatMap((s) => [s.derivedId, s.ackedId].filter((id): id is string => id !== undefined)));
  for (const order of orders) {
    if (order.strategyId === undefined && !asked.has(order.orderId))
      violations.push(`order ${order.orderId} (${order.channel}, ${order.status}) matches no key a client sent`);
  }
  return { name: 'acknowledged orders present exactly once', checked: acked.length, violations };
}

function withdrawalsOnce({ withdrawals, storedWithdrawals, transfers }: ChaosRecords): InvariantResult {
  const violations: string[] = [];
  const stored = tally(storedWithdrawals.map((w) => w.withdrawalId));
  const byId = new Map(storedWithdrawals.map((w) => [w.withdrawalId, w]));
  const transfersOf = tally(transfers.map((t) => t.txSignature));
  const acked = withdrawals.filter((w) => w.ackedId !== undefined);
  for (const request of acked) {
    const n = stored.get(request.ackedId!) ?? 0;
    if (n !== 1) violations.push(`acknowledged withdrawal ${request.ackedId} (key ${request.key}) is stored ${n} times`);
    const withdrawal = byId.get(request.ackedId!);
    if (withdrawal && request.ackedStatus === 'confirmed' && withdrawal.status !== 'confirmed')
      violations.push(`withdrawal ${request.ackedId} was acknowledged confirmed but is stored ${withdrawal.status}`);
  }
  // The chain moved each confirmed withdrawal once, and nothing else.
  for (const withdrawal of storedWithdrawals) {
    const moved = withdrawal.txSignature ? (transfersOf.get(withdrawal.txSignature) ?? 0) : 0;
    if (withdrawal.status === 'confirmed' && moved !== 1)
      violations.push(`withdrawal ${withdrawal.withdrawalId} is confirmed but moved ${moved} times on the chain`);
  }
  const signatures = new Set(storedWithdrawals.map((w) => w.txSignature));
  for (const transfer of transfers)
    if (!signatures.has(transfer.txSignature)) violations.push(`transfer ${transfer.txSignature} belongs to no withdrawal`);
  // No more withdrawals per agent than keys its clients sent: none executed twice under two ids.
  const keysPerAgent = tally([...new Set(withdrawals.map((w) => `${w.agentId} ${w.key}`))].map((k) => k.split(' ')[0]!));
  for (const [agentId, n] of tally(storedWithdrawals.map((w) => w.agentId)))
    if (n > (keysPerAgent.get(agentId) ?? 0))
      violations.push(`agent ${agentId} has ${n} withdrawals for ${keysPerAgent.get(agentId) ?? 0} keys`);
  return { name: 'acknowledged withdrawals present exactly once', checked: acked.length, violations };
}

function ledgerEqualsFills({ wallets, fills, orders, transfers }: ChaosRecords): InvariantResult {
  const violations: string[] = [];
  const fillOf = new Map(fills.map((f) => [f.orderId, f]));
  // Each order the store calls filled has its fill, with the same amount out; and each filled fill its order.
  const orderOf = new Map(orders.map((o) => [o.orderId, o]));
  for (const order of orders) {
    if (order.status !== 'filled') continue;
    const fill = fillOf.get(order.orderId);
    if (fill?.status !== 'filled') violations.push(`order ${order.orderId} is filled but its fill is ${fill?.status ?? 'missing'}`);
    else if (fill.filledOut !== order.filledOut)
      violations.push(`order ${order.orderId} filled ${order.filledOut} but its fill says ${fill.filledOut}`);
  }
  for (const fill of fills)
    if (fill.status === 'filled' && orderOf.get(fill.orderId)?.status !== 'filled')
      violations.push(`fill ${fill.orderId} moved money but its order is ${orderOf.get(fill.orderId)?.status ?? 'missing'}`);
  // Balances = what the faucet put in, moved by each filled fill once and each transfer once.
  for (const wallet of wallets) {
    const expected = new Map(Object.entries(wallet.funded).map(([token, amount]) => [token, BigInt(amount)]));
    const move = (token: string, delta: bigint) => expected.set(token, (expected.get(token) ?? 0n) + delta);
    for (const fill of fills) {
      if (fill.address !== wallet.address || fill.status !== 'filled') continue;
      move(fill.inputMint, -BigInt(fill.amountIn));
      move(fill.outputMint, BigInt(fill.filledOut ?? '0'));
    }
    for (const transfer of transfers) {
      if (transfer.from === wallet.address) move(transfer.token, -BigInt(transfer.amount));
      if (transfer.to === wallet.address) move(transfer.token, BigInt(transfer.amount));
    }
    const tokens = new Set([...expected.keys(), ...Object.keys(wallet.balances)]);
    for (const token of tokens) {
      const want = expected.get(token) ?? 0n;
      const have = BigInt(wallet.balances[token] ?? '0');
      if (want !== have) violations.push(`wallet ${wallet.address} holds ${have} of ${token}, its fills and transfers say ${want}`);
    }
  }
  return { name: 'ledger = fills', checked: wallets.length, violations };
}

function dcaTicksOnce({ strategies, orders, faults }: ChaosRecords): InvariantResult {
  const violations: string[] = [];
  let ticks = 0;
  const byStrategy = new Map<string, StoredOrder[]>();
  for (const order of orders) {
    if (order.strategyId === undefined) continue;
    byStrategy.set(order.strategyId, [...(byStrategy.get(order.strategyId) ?? []), order]);
  }
  const known = new Set(strategies.map((s) => s.strategyId));
  for (const strategyId of byStrategy.keys()) if (!known.has(strategyId)) violations.push(`orders of unknown strategy ${strategyId}`);
  // A missing tick is excused while a fault was on (its run died with a process, or waited on Redis or the store).
  const inFault = (dueAt: number, intervalMs: number) => faults.some((f) => dueAt >= f.from - intervalMs && dueAt <= f.to + FAULT_GRACE_MS);
  for (const strategy of strategies) {
    const own = (byStrategy.get(strategy.strategyId) ?? []).filter((o) => o.tickDueAt !== undefined);
    ticks += own.length;
    for (const [dueAt, n] of tally(own.map((o) => o.tickDueAt!)))
      if (n > 1) violations.push(`strategy ${strategy.strategyId}: tick due ${dueAt} bought ${n} times`);
    for (const order of own)
      if (order.tickDueAt! % strategy.intervalMs !== 0)
        violations.push(`strategy ${strategy.strategyId}: tick due ${order.tickDueAt} is off its grid`);
    const filled = own.filter((o) => o.status === 'filled').length;
    // Each settled tick counted once: a buy counted twice (or lost) shows as a difference.
    if (strategy.buys + strategy.inFlight < filled || strategy.buys > filled)
      violations.push(`strategy ${strategy.strategyId}: ${filled} filled tick orders but ${strategy.buys} buys counted`);
    // Every due time between the first and the last run was run, counted skipped, or fell in a fault.
    const dueAts = [...new Set(own.map((o) => o.tickDueAt!))].sort((a, b) => a - b);
    const createdOf = new Map(own.map((o) => [o.tickDueAt!, o.createdAt]));
    let unexplained = 0;
    for (let i = 1; i < dueAts.length; i++) {
      const [before, after] = [dueAts[i - 1]!, dueAts[i]!];
      // The scheduler makes the next run when a run is picked up, at the first due time after
      // that: a run picked up late collapses the due times it overslept (its order shows it).
      if ((createdOf.get(before) ?? 0) >= after - strategy.intervalMs) continue;
      for (let due = before + strategy.intervalMs; due < after; due += strategy.intervalMs)
        if (!inFault(due, strategy.intervalMs)) unexplained += 1;
    }
    if (unexplained > strategy.skipped)
      violations.push(
        `strategy ${strategy.strategyId}: ${unexplained} due ticks neither run nor counted skipped (skipped ${strategy.skipped})`,
      );
  }
  return { name: 'each DCA due tick bought once or counted skipped', checked: ticks, violations };
}

function sseNoGapNoDouble({ sse }: ChaosRecords): InvariantResult {
  const violations: string[] = [];
  let events = 0;
  for (const client of sse) {
    events += client.received.length;
    for (const [id, n] of tally(client.received)) if (n > 1) violations.push(`agent ${client.agentId}: event ${id} delivered ${n} times`);
    const got = new Set(client.received);
    const missing = client.reference.filter((id) => !got.has(id));
    if (missing.length)
      violations.push(`agent ${client.agentId}: ${missing.length} events never delivered (${missing.slice(0, 5).join(', ')})`);
    const reference = new Set(client.reference);
    const phantom = [...got].filter((id) => !reference.has(id));
    if (phantom.length)
      violations.push(
        `agent ${client.agentId}: ${phantom.length} events delivered that the stream does not hold (${phantom.slice(0, 5).join(', ')})`,
      );
    for (let i = 1; i < client.received.length; i++)
      if (client.received[i]! <= client.received[i - 1]!) {
        violations.push(`agent ${client.agentId}: event ${client.received[i]} arrived after ${client.received[i - 1]}`);
        break;
      }
  }
  return { name: 'no SSE event missing or doubled for a resuming client', checked: events, violations };
}

function answersAllowed({ answers, faults }: ChaosRecords): InvariantResult {
  const violations: string[] = [];
  const during = (answer: AnswerRecord, kind: FaultWindow['kind']) =>
    faults.some((f) => f.kind === kind && answer.sentAt <= f.to + FAULT_GRACE_MS && answer.at >= f.from);
  const wrong = new Map<string, number>();
  for (const answer of answers) {
    const { status } = answer;
    if (typeof status === 'number' && status >= 200 && status < 300) continue;
    if (typeof status === 'number' && DOCUMENTED_4XX.has(status)) continue;
    if (status === 503 && during(answer, 'redis-pause')) continue;
    // Cut by the balancer: its process was killed under it.
    if (status === 'none' && during(answer, 'kill')) continue;
    if (status === 'timeout') continue;
    const label = `${answer.via} ${answer.what}: ${status}${answer.code ? ` ${answer.code}` : ''}`;
    wrong.set(label, (wrong.get(label) ?? 0) + 1);
  }
  for (const [label, n] of wrong) violations.push(`${n}× ${label}`);
  return { name: 'only 2xx, documented 4xx, or 503 during the Redis pause', checked: answers.length, violations };
}
