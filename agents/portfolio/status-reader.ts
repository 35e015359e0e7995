import { z } from 'zod';
import { chosenAgentId } from '../../machines/agent-id.js';
import type { AgentContext } from '../../machines/agent.machine.js';
import type { BotContext } from '../../machines/bot.machine.js';
import type { OrderContext } from '../../machines/order.machine.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { Page, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { plainDecimal } from '../../kernel/vocabulary/amounts.js';
import type { PortfolioSummary, PositionSummary, StatusReader, SubjectStatus, TradingSubject, WalletSummary } from './portfolio.types.js';
import { TRADING_RECORDS, subjectKey } from './portfolio.records.js';

const DECIMAL = /^\d+(\.\d+)?$/;
// Only these fields are projected: a wallet record may hold more (encrypted keys) and none of it leaves here.
const walletRecord = z.object({ walletId: z.string(), chain: z.string(), address: z.string(), custodial: z.boolean() });
const positionRecord = z.object({
  chain: z.string(),
  token: z.string(),
  symbol: z.string().optional(),
  amount: z.string().regex(DECIMAL),
  valueUsd: z.string().regex(DECIMAL).optional(),
});
const PAGE = 200;
/** The order actors' index of account + open/closed (see machines/order.machine.ts). */
const OPEN_ORDERS_INDEX = 'subjectOpen';
/** A guard against a runaway scan; far beyond any real account. */
const MAX_RECORDS = 10_000;

/** The status of an agent or bot from its actor's view, as read by whoever holds it (the boundary of a request). */
export function statusOfView(
  subject: TradingSubject,
  view: Pick<ActorView<Pick<AgentContext | BotContext, 'name' | 'tradingEnabled'>>, 'state' | 'context'>,
): SubjectStatus {
  const { context } = view;
  // An agent is named as its owner knows it (ask_bot's replies and the portfolio summary show this).
  const subjectId = subject.type === 'agent' ? chosenAgentId(subject.id) : subject.id;
  return { subjectType: subject.type, subjectId, name: context.name, status: String(view.state), tradingEnabled: context.tradingEnabled };
}

/**
 * Status and portfolio of an agent or bot from what is stored: the subject's actor and
 * the trading records of `TRADING_RECORDS` (empty lists until the trading pipeline writes some).
 */
export class StoreStatusReader implements StatusReader {
  constructor(
    private readonly deps: {
      /** The subjects (agents, legacy bots) read by id; orders counted through their open-orders index. */
      actors: {
        agents: Pick<ActorCollection<AgentContext>, 'get'>;
        bots: Pick<ActorCollection<BotContext>, 'get'>;
        orders: Pick<ActorCollection<OrderContext>, 'count'>;
      };
      store: StorePort;
      clock: ClockPort;
      /** Current USD price of a token; positions are valued with it when given. */
      price?: (chain: string, token: string) => Promise<number | null>;
    },
  ) {}

  async agentStatus(subject: TradingSubject): Promise<SubjectStatus> {
    const { agents, bots } = this.deps.actors;
    const view = subject.type === 'agent' ? await agents.get(subject.id) : await bots.get(subject.id);
    if (!view) throw AppError.notFound(subject.type === 'agent' ? 'Agent not found' : 'Bot not found');
    return statusOfView(subject, view);
  }

  async portfolio(subject: TradingSubject): Promise<PortfolioSummary> {
    const key = subjectKey(subject);
    // The four reads at once: one wait instead of two on every call. An unknown subject is
    // still refused by the status read; what the other three read is then dropped.
    const [status, walletDocs, positionDocs, openOrders] = await Promise.all([
      this.agentStatus(subject),
      this.records(TRADING_RECORDS.wallets, key),
      this.records(TRADING_RECORDS.positions, key),
      this.openOrders(key),
    ]);
    const wallets: WalletSummary[] = walletDocs.map((doc) => project(walletRecord, TRADING_RECORDS.wallets, doc));
    const held = positionDocs
      .map((doc) => project(positionRecord, TRADING_RECORDS.positions, doc))
      .filter((position) => !/^0+(\.0+)?$/.test(position.amount));
    // Nothing held (a new or idle account): no wait for prices of nothing.
    const valued = held.length === 0 ? [] : await Promise.all(held.map((position) => this.valued(position)));
    return {
      ...status,
      wallets,
      positions: valued.map(({ position }) => position),
      openOrders,
      // The exact values, not the positions' cents: 1.005 + 2.675 is 3.68, their cents 3.69.
      valueUsd: sumUsd(valued.flatMap(({ exactUsd }) => (exactUsd === undefined ? [] : [exactUsd]))),
      asOf: new Date(this.deps.clock.now()).toISOString(),
    };
  }

  /** The position at the current price, in cents, and the unrounded value for totals. */
  private async valued(position: PositionSummary): Promise<{ position: PositionSummary; exactUsd?: string }> {
    const price = this.deps.price ? await this.deps.price(position.chain, position.token) : null;
    if (price === null) return position.valueUsd === undefined ? { position } : { position, exactUsd: position.valueUsd };
    const { valueUsd: _stored, ...rest } = position;
    const exactUsd = toDecimal(Number(position.amount) * price);
    return { position: { ...rest, valueUsd: sumUsd([exactUsd]) }, exactUsd };
  }

  /** Orders in flight, through the account's open-orders index (no scan of the filled history). */
  private openOrders(key: string): Promise<number> {
    return this.deps.actors.orders.count({ index: OPEN_ORDERS_INDEX, eq: `${key}|open` }, MAX_RECORDS);
  }

  /** Every record of the subject (collections declared at start: `TRADING_RECORD_COLLECTIONS`). */
  private async records(collection: string, key: string): Promise<StoredDocument[]> {
    const first = await this.deps.store.find(collection, { index: TRADING_RECORDS.subjectIndex, eq: key }, { limit: PAGE });
    // One page is every account but the largest: its items as they are, no copy.
    if (!first.nextCursor) return first.items;
    const out: StoredDocument[] = [...first.items];
    let cursor: string | undefined = first.nextCursor;
    while (cursor && out.length < MAX_RECORDS) {
      const page: Page<StoredDocument> = await this.deps.store.find(
        collection,
        { index: TRADING_RECORDS.subjectIndex, eq: key },
        { limit: PAGE, cursor },
      );
      out.push(...page.items);
      cursor = page.nextCursor;
    }
    return out;
  }
}

/** Projections of stored documents, which stores share frozen per version (StorePort): each is parsed once. */
const projections = new WeakMap<StoredDocument, unknown>();

function project<S extends z.ZodType>(schema: S, collection: string, doc: StoredDocument): z.output<S> {
  const known = projections.get(doc);
  if (known !== undefined) return known as z.output<S>;
  const parsed = schema.safeParse(doc.data);
  // A malformed record is a bug in its writer; saying so beats a silently wrong total.
  if (!parsed.success) throw AppError.internal(`Trading record ${collection}/${doc.id} does not have the expected fields`);
  projections.set(doc, Object.freeze(parsed.data));
  return parsed.data;
}

/** Exact decimal sum (BigInt, no float drift), rounded half up to cents. */
export function sumUsd(values: string[]): string {
  // Nothing priced (most accounts): no BigInt arithmetic for a known answer.
  if (values.length === 0) return '0.00';
  const scale = Math.max(2, ...values.map((value) => value.split('.')[1]?.length ?? 0));
  const total = values.reduce((sum, value) => {
    const [whole = '0', fraction = ''] = value.split('.');
    return sum + BigInt(whole + fraction.padEnd(scale, '0'));
  }, 0n);
  const divisor = 10n ** BigInt(scale - 2);
  const cents = (total + divisor / 2n) / divisor;
  const digits = cents.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** A non-negative float as a plain decimal string (no exponent), for `sumUsd`. */
function toDecimal(value: number): string {
  return value > 0 && Number.isFinite(value) ? plainDecimal(value, 6) : '0';
}
