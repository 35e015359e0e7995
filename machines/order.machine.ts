import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';
import { toOrderView, type OrderView } from './order-view.js';
import type { OrderContext, OrderStatus } from './order-context.types.js';

export type { OrderContext, OrderStatus };

/** Statuses an order never leaves (its `open` index reads `closed`). */
const FINAL_ORDER_STATUSES: readonly OrderStatus[] = ['filled', 'failed', 'rejected', 'cancelled', 'expired'];

/**
 * One order (orders). `pending_approval` → `approved` → `submitting` →
 * `submitted` → `filled` | `failed`; `pending_approval` → `rejected` | `expired`;
 * `cancelled` before submission. `submitting` is entered (and persisted) before the
 * venue is called, so a crash leaves a record that recovery reconciles.
 */
export type OrderInput = Omit<OrderContext, 'status' | 'updatedAt'> & {
  /** true: the order waits for approval; false: it is approved and marked submitting at once. */
  requiresApproval: boolean;
};

/** Time is data: every event carries when it happened (`at`, epoch ms). */
export type OrderEvent =
  | { type: 'order.approve'; at: number }
  | { type: 'order.reject'; at: number; reason?: string }
  | { type: 'order.expire'; at: number }
  | { type: 'order.cancel'; at: number; reason?: string }
  | { type: 'order.submit'; at: number }
  | { type: 'order.submitted'; at: number; txSignature: string }
  | { type: 'order.fill'; at: number; filledOut: string; txSignature: string }
  /** `retryable`: refused before anything was sent for a reason that may pass (breaker open): a retry may place it again. */
  | { type: 'order.fail'; at: number; reason: string; txSignature?: string; retryable?: boolean };

/** What subscribers see: the order in its new status, in the shape every surface shows. */
export interface OrderEmitted {
  type: 'order.created' | 'order.updated';
  order: OrderView;
  [key: string]: unknown;
}

/** The fields an event sets on the order, besides its new status. */
function patch(event: OrderEvent, status: OrderStatus): Partial<OrderContext> {
  const base = { status, updatedAt: event.at };
  switch (event.type) {
    case 'order.approve':
      // Too late: the window closed before the approval came (its expiry job runs late).
      return status === 'expired' ? { ...base, reason: APPROVAL_EXPIRED } : { ...base, approvedAt: event.at };
    case 'order.submit':
      return { ...base, submittedAt: event.at };
    case 'order.reject':
    case 'order.cancel':
      return { ...base, reason: event.reason ?? status };
    case 'order.expire':
      return { ...base, reason: APPROVAL_EXPIRED };
    case 'order.submitted':
      return { ...base, txSignature: event.txSignature };
    case 'order.fill':
      return { ...base, filledOut: event.filledOut, txSignature: event.txSignature };
    case 'order.fail':
      return {
        ...base,
        reason: event.reason,
        ...(event.txSignature ? { txSignature: event.txSignature } : {}),
        ...(event.retryable ? { retryable: true } : {}),
      };
  }
}

const APPROVAL_EXPIRED = 'approval window expired';

/** A transition to `status`: record the event's fields, then tell subscribers. */
const to = (status: OrderStatus) => ({
  target: status,
  actions: [{ type: 'record' as const, params: { status } }, { type: 'announce' as const }],
});

export const orderMachine = setup({
  types: {
    context: {} as OrderContext,
    input: {} as OrderInput,
    events: {} as OrderEvent,
    emitted: {} as OrderEmitted,
  },
  actions: {
    record: assign(({ event }, params: { status: OrderStatus }) => patch(event, params.status)),
    announce: emit(({ context }) => ({ type: 'order.updated' as const, order: toOrderView(context) })),
  },
  guards: {
    autoApproved: ({ context }) => context.status === 'submitting',
    // An expiry wake-up that arrives early (clock skew, a replayed job) is ignored.
    expiryReached: ({ context, event }) => event.type === 'order.expire' && event.at >= (context.approvalExpiresAt ?? 0),
    // The expiry job is a wake-up that may come late; the window itself is the order's.
    approvalTooLate: ({ context, event }) =>
      event.type === 'order.approve' && context.approvalExpiresAt !== undefined && event.at >= context.approvalExpiresAt,
  },
}).createMachine({
  id: 'order',
  context: ({ input }) => {
    const { requiresApproval, ...fields } = input;
    return {
      ...fields,
      status: requiresApproval ? 'pending_approval' : 'submitting',
      updatedAt: input.createdAt,
      ...(requiresApproval ? {} : { approvedAt: input.createdAt, submittedAt: input.createdAt }),
    };
  },
  initial: 'created',
  entry: emit(({ context }) => ({ type: 'order.created' as const, order: toOrderView(context) })),
  states: {
    // Routes the new order: an auto-approved one is persisted already in `submitting`.
    created: { always: [{ guard: 'autoApproved', target: 'submitting' }, { target: 'pending_approval' }] },
    pending_approval: {
      on: {
        'order.approve': [{ ...to('expired'), guard: 'approvalTooLate' }, to('approved')],
        'order.reject': to('rejected'),
        'order.expire': { ...to('expired'), guard: 'expiryReached' },
        'order.cancel': to('cancelled'),
      },
    },
    approved: {
      on: {
        'order.submit': to('submitting'),
        'order.cancel': to('cancelled'),
        // A check re-run at approval time (balance, kill switch) can refuse it before anything is sent.
        'order.fail': to('failed'),
      },
    },
    submitting: { on: { 'order.submitted': to('submitted'), 'order.fill': to('filled'), 'order.fail': to('failed') } },
    submitted: { on: { 'order.fill': to('filled'), 'order.fail': to('failed') } },
    filled: { type: 'final' },
    failed: { type: 'final' },
    rejected: { type: 'final' },
    cancelled: { type: 'final' },
    expired: { type: 'final' },
  },
});

/** Newest first under one index: the index value sorts ascending, so time is stored inverted. */
const TIME_SPAN = 10 ** 15;
export function orderTimeKey(subject: string, createdAt: number): string {
  return `${subject}|${String(TIME_SPAN - createdAt).padStart(15, '0')}`;
}

export const orderDefinition: MachineDefinition<OrderContext, OrderEvent, OrderInput> = {
  type: 'order',
  version: 1,
  machine: orderMachine,
  // `subject` feeds the portfolio reader; `subjectTime` lists an account's orders newest first;
  // `subjectStatus` finds its pending approvals without a scan.
  // `subjectTime` / `subjectStatus` list an account's orders (of one status) newest first;
  // `subjectOpen` counts orders in flight (portfolio summary) with one lookup.
  indexNames: ['subject', 'subjectTime', 'subjectStatus', 'subjectOpen'],
  indexes: (context) => {
    const subject = `${context.subjectType}:${context.subjectId}`;
    const open = FINAL_ORDER_STATUSES.includes(context.status) ? 'closed' : 'open';
    return {
      subject,
      subjectTime: orderTimeKey(subject, context.createdAt),
      subjectStatus: orderTimeKey(`${subject}|${context.status}`, context.createdAt),
      subjectOpen: `${subject}|${open}`,
    };
  },
  stream: (context) => `${context.subjectType}:${context.subjectId}`,
};
