import { setTimeout as sleep } from 'node:timers/promises';
import type { WithdrawalContext, WithdrawalEvent, WithdrawalInput, WithdrawalView } from '../../machines/withdrawal.machine.js';
import { toWithdrawalView } from '../../machines/withdrawal.machine.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import { AppError, isAppError, isFaultKind } from '../../kernel/errors/app-error.js';
import { notTokenOwner, tokenAddressProblem } from '../../kernel/vocabulary/chain-address.js';
import { IDEMPOTENCY_MESSAGES } from '../../kernel/errors/idempotency-messages.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { ChainPort, LedgerTransfers } from '../../kernel/ports/chain.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { walletChainOf, type Chain, type TokenInfo, type WalletChain, type WalletSigner } from '../../kernel/ports/venue.port.js';
import type { PositionsService, TokenLeg } from '../portfolio/positions.service.js';
import type { SubjectStatus, TradingSubject } from '../portfolio/portfolio.types.js';
import { fromBaseUnits } from '../../kernel/vocabulary/amounts.js';
import { KeyedQueue } from '../trading/keyed-queue.js';
import { derivedId, randomId } from '../../kernel/vocabulary/ids.js';
import { accountActive, killSwitchOpen, Reservations } from '../trading/money-steps.js';
import { walletRequired } from '../wallets/wallet.records.js';
import type { WalletView } from '../wallets/wallet.types.js';
import { WithdrawalCap } from './withdrawal-cap.js';
import { normalizeRecipient, recipientProblem, type WithdrawalSettingsStore } from './withdrawal-settings.js';

/**
 * Withdrawals from an account's custodial wallet: the checks (enabled, kill switch, account active, scope and step-up, allowlist, balance with the fee, daily cap) in order, each with
 * its own refusal, then the `withdrawal` actor from `requested` to `confirmed` or `failed`.
 *
 * Never paying twice rests on three rules:
 * - the id is derived from the idempotency key, so a retry finds the withdrawal it made;
 * - signed bytes are committed to the actor (`requested` → `signed`) before they are sent,
 *   and only the caller whose `sign` the actor accepted may send them: a concurrent signer
 *   (a second process, the sweep) loses that transition and discards its bytes unsent;
 * - after that, nothing is ever signed again for the withdrawal: recovery looks the hash up,
 *   and sends the *same bytes* again only while the chain does not know them and they can
 *   still land (`ChainPort.rebroadcast`), which can never pay twice; bytes that can no
 *   longer land (expired blockhash, nonce used) fail the withdrawal, nothing having moved.
 * On a local ledger (paper) the transfer's writes commit with the withdrawal's `confirmed`
 * instead: no bytes are ever in flight, and of two signers only the winning commit moves funds.
 */
const WITHDRAWAL_MESSAGES = {
  disabled: 'Withdrawals are disabled for this agent',
  notAllowlisted: (to: string) => `Withdrawal address not on the allowlist: ${to}`,
  amountPositive: 'amount must be greater than 0',
  balance: 'Insufficient balance for requested withdrawal amount',
  noPrice: (symbol: string) => `No USD price for ${symbol}: the daily withdrawal cap cannot be applied`,
  noChain: (chain: string) => `Withdrawals are not available on ${chain} here`,
  expired: 'Transaction expired before it landed: nothing was sent',
  ownWallet: 'to must not be the wallet itself',
  notActive: 'Withdrawals are refused while the agent is paused or archived',
} as const;

export interface WithdrawRequest {
  chain: Chain;
  /** Symbol, mint or contract address. */
  token: string;
  /** Base units, decimal string. */
  amount: string;
  to: string;
}

export interface WithdrawCaller {
  /** The effective scope of the credential (after the agent's `maxScope`). */
  scope: KeyScope;
  /** The owner of the account, whom a step-up token is issued to. */
  userId?: string;
  stepUpToken?: string;
  /** Idempotency key of the call (the id of the withdrawal derives from it). */
  idempotencyKey?: string;
  /** Digest of what the call asked: a key reused with another request is refused. */
  requestDigest?: string;
  /** The account's status as the call's boundary read it (this request's): checked instead of reading the agent again. */
  account?: SubjectStatus;
}

/** Agent control plane: per chain `{chain, address, tokens:[{mint|address, symbol, amount, decimals, valueUsd}]}`. */
export interface WalletBalance {
  chain: Chain;
  address: string;
  tokens: Array<{ mint?: string; address?: string; symbol: string; amount: string; decimals: number; valueUsd: number | null }>;
}

export interface WithdrawalServiceDeps {
  withdrawals: ActorCollection<WithdrawalContext, WithdrawalEvent, WithdrawalInput>;
  /** The chain transfers run on (a paper chain on the paper venue); undefined where none is configured. */
  chainOf: (chain: Chain) => ChainPort | undefined;
  wallets: {
    custodialState(subject: TradingSubject, chain: WalletChain): Promise<WalletView | null>;
    signer(subject: TradingSubject, walletId: string, checked?: WalletView): Promise<WalletSigner>;
  };
  tokens: {
    find(chain: Chain, ref: string): Promise<TokenInfo | null>;
    priceUsd(chain: Chain, address: string): Promise<number | null>;
    /** Every token an address holds (base units by address), as the venue in use sees it. */
    balances(chain: Chain, address: string): Promise<Record<string, string>>;
  };
  /** The chains transfers can run on here, in the order the balance lists them. */
  chains: readonly Chain[];
  killSwitch: { isActive(chain: Chain): Promise<boolean> };
  /** Whether the agent (or bot) is active: a paused or archived one moves no money, as it places no trade. */
  accountActive(subject: TradingSubject): Promise<boolean>;
  settings: WithdrawalSettingsStore;
  cap: WithdrawalCap;
  stepUp: { consume(input: { userId: string; target: string; token: string | null | undefined }): Promise<void> };
  positions: Pick<PositionsService, 'withdrawalWrites'>;
  clock: ClockPort;
  /** How long a call waits for its transfer's confirmation before answering `broadcast`. Default 30 polls, 1 s apart. */
  confirmation?: { attempts: number; intervalMs: number };
}

export class WithdrawalService {
  /** This process's creations of one account run one at a time: they share its cap record and its wallet's balance. */
  private readonly creations = new KeyedQueue();

  constructor(private readonly deps: WithdrawalServiceDeps) {}

  /**
   * Runs the checks in order, creates the withdrawal (with its share of the cap), signs, sends
   * and waits for it. A key that made a withdrawal already answers that one: its id is taken,
   * so the create refuses, and a check the retry fails (its own withdrawal spent the balance or
   * the cap) is answered by the one it made. It is looked up only then, so a first call does not read it.
   */
  async withdraw(subject: TradingSubject, request: WithdrawRequest, caller: WithdrawCaller): Promise<WithdrawalView> {
    const withdrawalId = caller.idempotencyKey ? derivedWithdrawalId(subject, caller.idempotencyKey) : randomId('wd');
    let created: { withdrawal: WithdrawalContext; checkedNow: CheckedNow };
    try {
      created = await this.create(subject, withdrawalId, request, caller);
    } catch (error) {
      const existing = caller.idempotencyKey ? await this.find(subject, withdrawalId) : null;
      if (existing) return this.drive(sameRequest(existing, caller));
      throw error;
    }
    // Checked a moment ago in this request: the first send does not read the switches, nor the wallet, again.
    return this.drive(created.withdrawal, undefined, { checkedNow: created.checkedNow });
  }

  /** The checks in order, then the withdrawal created with its share of the cap; what the send may take as checked. */
  private async create(
    subject: TradingSubject,
    withdrawalId: string,
    request: WithdrawRequest,
    caller: WithdrawCaller,
  ): Promise<{ withdrawal: WithdrawalContext; checkedNow: CheckedNow }> {
    // 0. the agent is active (a paused one trades nothing either: the safety path's rule).
    await this.assertActive(subject, caller.account);
    // 1. credential and scope: trade, or manage when withdrawals require step-up.
    const settings = await this.deps.settings.get(subject);
    if (settings.requireStepUp && caller.scope !== 'manage') throw AppError.scopeInsufficient('manage', caller.scope);
    // 2. withdrawals enabled.
    if (!settings.enabled) throw AppError.forbidden(WITHDRAWAL_MESSAGES.disabled);
    // 3. the chain's kill switch.
    await this.assertChainOpen(request.chain);
    const chain = this.deps.chainOf(request.chain);
    if (!chain) throw AppError.validation([WITHDRAWAL_MESSAGES.noChain(request.chain)]);
    // 4. `to` valid for the chain, and on the allowlist when one is set.
    const family = walletChainOf(request.chain);
    const problem = recipientProblem(family, request.to, 'to', request.chain);
    if (problem) throw AppError.validation([problem]);
    const to = normalizeRecipient(family, request.to);
    if (settings.allowlist.length > 0 && !settings.allowlist.includes(to)) throw AppError.forbidden(WITHDRAWAL_MESSAGES.notAllowlisted(to));
    // A program beyond the well-known ones, where the chain can tell (an executable account on Solana).
    if (await chain.isProgram(to)) throw AppError.validation([notTokenOwner('to')]);
    // 5. amount > 0 and within the balance (the chain adds its fee check when it signs).
    const tokenProblem = tokenAddressProblem(request.chain, request.token, family === 'evm' ? 'token' : 'mint');
    if (tokenProblem) throw AppError.validation([tokenProblem]);
    const token = await this.deps.tokens.find(request.chain, request.token);
    if (!token) throw new AppError('TOKEN_NOT_FOUND', `Token not found: ${request.token}`);
    const amount = BigInt(request.amount);
    if (amount <= 0n) throw AppError.validation([WITHDRAWAL_MESSAGES.amountPositive]);
    const wallet = await this.deps.wallets.custodialState(subject, family);
    if (!wallet) throw walletRequired(family);
    if (to === wallet.address) throw AppError.validation([WITHDRAWAL_MESSAGES.ownWallet]);
    const priceUsd = await this.deps.tokens.priceUsd(request.chain, token.address);
    const valueUsd = priceUsd === null ? null : Number(fromBaseUnits(amount, token.decimals)) * priceUsd;
    if (settings.dailyCapUsd !== undefined && valueUsd === null) throw AppError.validation([WITHDRAWAL_MESSAGES.noPrice(token.symbol)]);

    const now = this.deps.clock.now();
    const capDay = settings.dailyCapUsd !== undefined ? WithdrawalCap.dayOf(now) : undefined;
    const input: WithdrawalInput = {
      withdrawalId,
      subjectType: subject.type,
      subjectId: subject.id,
      ...(caller.userId ? { userId: caller.userId } : {}),
      chain: request.chain,
      walletId: wallet.walletId,
      from: wallet.address,
      to,
      token: token.address,
      symbol: token.symbol,
      decimals: token.decimals,
      amount: amount.toString(),
      valueUsd,
      ...(capDay ? { capDay } : {}),
      ...(caller.requestDigest ? { requestDigest: caller.requestDigest } : {}),
      createdAt: now,
    };
    return this.creations.run(`${subject.type}:${subject.id}`, async () => {
      // The balance less what this wallet's withdrawals in flight hold back: concurrent ones see each other.
      const available = await this.available(chain, wallet, token.address);
      if (available < amount) throw new AppError('INSUFFICIENT_BALANCE', WITHDRAWAL_MESSAGES.balance);
      // 6. the day's total under the cap: read now (its refusal comes before step-up's), then
      // reserved in the commit that creates the withdrawal, where a concurrent one may still refuse it.
      const cap = settings.dailyCapUsd;
      let reservation = cap === undefined ? undefined : await this.deps.cap.reserveWrite(subject, valueUsd!, cap, capDay!);
      const join =
        cap === undefined
          ? undefined
          : async () => {
              // The first commit writes what was read above; one retried after another process moved
              // the record (its compare-and-set lost) reads it again.
              const write = reservation ?? (await this.deps.cap.reserveWrite(subject, valueUsd!, cap, capDay!));
              reservation = undefined;
              return { writes: [write] };
            };
      // 7. step-up last: a refusal above must not burn the token.
      if (settings.requireStepUp)
        await this.deps.stepUp.consume({ userId: caller.userId ?? '', target: `${subject.type}:${subject.id}`, token: caller.stepUpToken });
      // The id taken (the same key raced in, or came back) is a conflict `withdraw` answers with that withdrawal.
      const withdrawal = (await this.deps.withdrawals.create(withdrawalId, input, join ? { join } : undefined)).context;
      return { withdrawal, checkedNow: { wallet } };
    });
  }

  /** The custodial wallets' balances per chain, valued at the venue's prices (`GET .../wallet/balance`). */
  async balances(subject: TradingSubject): Promise<WalletBalance[]> {
    const out: WalletBalance[] = [];
    for (const chain of this.deps.chains) {
      const wallet = await this.deps.wallets.custodialState(subject, walletChainOf(chain));
      if (!wallet) continue;
      const held = await this.deps.tokens.balances(chain, wallet.address);
      const tokens: WalletBalance['tokens'] = [];
      for (const [address, amount] of Object.entries(held)) {
        if (amount === '0') continue;
        const token = await this.deps.tokens.find(chain, address);
        const decimals = token?.decimals ?? 0;
        const price = token ? await this.deps.tokens.priceUsd(chain, token.address) : null;
        const valueUsd = price === null ? null : Math.round(Number(fromBaseUnits(BigInt(amount), decimals)) * price * 100) / 100;
        tokens.push({
          ...(chain === 'solana' ? { mint: address } : { address }),
          symbol: token?.symbol ?? '?',
          amount,
          decimals,
          valueUsd,
        });
      }
      out.push({ chain, address: wallet.address, tokens });
    }
    return out;
  }

  /** A withdrawal of the account, as it stands; 404 for another account's. */
  async get(subject: TradingSubject, withdrawalId: string): Promise<WithdrawalView> {
    const found = await this.find(subject, withdrawalId);
    if (!found) throw AppError.notFound('Withdrawal not found');
    return toWithdrawalView(found);
  }

  /**
   * Moves a withdrawal as far as it can go now: signs and sends a `requested` one (after
   * re-checking what may have changed since it was created), looks a signed or broadcast one
   * up on chain. Used by the request itself, by a retry, and by recovery.
   */
  async drive(withdrawal: WithdrawalContext, looks?: number, options: { checkedNow?: CheckedNow } = {}): Promise<WithdrawalView> {
    let current = withdrawal;
    if (current.status === 'requested') current = await this.signAndSend(current, options.checkedNow);
    if (current.status === 'signed' || current.status === 'broadcast') current = await this.settle(current, looks);
    if (current.status === 'failed') throw failureOf(current);
    return toWithdrawalView(current);
  }

  /** Recovery's view of one withdrawal left in flight (one look at the chain, no waiting); never throws for a failure it records. */
  async reconcile(withdrawal: WithdrawalContext): Promise<WithdrawalView> {
    try {
      return await this.drive(withdrawal, 1);
    } catch (error) {
      const after = await this.deps.withdrawals.get(withdrawal.withdrawalId);
      if (after?.context.status === 'failed') return toWithdrawalView(after.context);
      throw error;
    }
  }

  /** `held`: the status this request read already; absent, it is read now. */
  private async assertActive(subject: TradingSubject, held?: SubjectStatus): Promise<void> {
    const active = held ? accountActive(held) : await this.deps.accountActive(subject);
    if (!active) throw AppError.forbidden(WITHDRAWAL_MESSAGES.notActive);
  }

  /**
   * `checkedNow`: the request that created it checked the account, the switches, the
   * settings and the wallet moments ago, so they are not read again; any later send (a retry,
   * recovery, the sweep) meets them as they are then.
   */
  private async signAndSend(withdrawal: WithdrawalContext, checkedNow?: CheckedNow): Promise<WithdrawalContext> {
    const chainName = withdrawal.chain as Chain;
    const chain = this.deps.chainOf(chainName);
    let committed: WithdrawalContext | undefined;
    try {
      if (!chain) throw AppError.validation([WITHDRAWAL_MESSAGES.noChain(chainName)]);
      // A late first send (after a crash) meets the switches as they are now.
      if (!checkedNow) {
        await this.assertActive(subjectOf(withdrawal));
        await this.assertChainOpen(chainName);
        if (!(await this.deps.settings.get(subjectOf(withdrawal))).enabled) throw AppError.forbidden(WITHDRAWAL_MESSAGES.disabled);
      }
      const signer = await this.deps.wallets.signer(subjectOf(withdrawal), withdrawal.walletId, checkedNow?.wallet);
      if (chain.ledger) return await this.settleOnLedger(chain.ledger, withdrawal, signer);
      await chain.transfer({
        signer,
        to: withdrawal.to,
        token: withdrawal.token,
        amount: withdrawal.amount,
        reference: withdrawal.withdrawalId,
        beforeBroadcast: async (signed) => {
          const { accepted, view } = await this.deps.withdrawals.send(withdrawal.withdrawalId, {
            type: 'withdrawal.sign',
            at: this.deps.clock.now(),
            txSignature: signed.txSignature,
            signedTx: signed.signedTx,
            ...(signed.validUntilHeight === undefined ? {} : { validUntilHeight: signed.validUntilHeight }),
          });
          // Another caller's bytes were committed first: only those may ever be sent.
          if (!accepted) throw new SignedElsewhere();
          committed = view.context;
        },
      });
    } catch (error) {
      const after = (await this.deps.withdrawals.get(withdrawal.withdrawalId))!.context;
      // Bytes are committed (ours, or another caller's): whatever the send did, the chain decides.
      if (after.status !== 'requested') return after;
      // Nothing was committed, so nothing was sent. A refusal that may pass (a node down)
      // leaves it `requested` for a retry or the sweep; any other fails it.
      if (isAppError(error) && isFaultKind(error.kind)) throw error;
      return this.fail(after, isAppError(error) ? error.message : 'transfer failed');
    }
    // The signed withdrawal as its own commit answered (the transfer committed it, so it is there).
    const signed = committed ?? (await this.deps.withdrawals.get(withdrawal.withdrawalId))!.context;
    return this.mark(signed, { type: 'withdrawal.broadcast', at: this.deps.clock.now() });
  }

  /**
   * A transfer on a local ledger (paper), applied in the commit that takes the withdrawal from
   * `requested` through `signed` and `broadcast` to `confirmed` (one version, one journal entry),
   * with the position it books: all or nothing, so a crash leaves
   * it `requested` with nothing moved, and of two callers signing at once only the one whose
   * commit wins moves funds (the other's bytes were never stored, so they can never apply).
   * The sender's balance the request's check read is the one the ledger's writes start from
   * (it keeps the wallet's last read, taken once); one retried after a lost compare-and-set reads again.
   */
  private async settleOnLedger(ledger: LedgerTransfers, withdrawal: WithdrawalContext, signer: WalletSigner): Promise<WithdrawalContext> {
    const signed = await ledger.sign({
      signer,
      to: withdrawal.to,
      token: withdrawal.token,
      amount: withdrawal.amount,
      reference: withdrawal.withdrawalId,
    });
    const at = this.deps.clock.now();
    const { view } = await this.deps.withdrawals.send(
      withdrawal.withdrawalId,
      { type: 'withdrawal.sign', at, txSignature: signed.txSignature, signedTx: signed.signedTx },
      {
        join: async () => {
          const transfer = await ledger.writes(signed);
          const booked = await this.deps.positions.withdrawalWrites(
            subjectOf(withdrawal),
            `withdrawal:${withdrawal.withdrawalId}`,
            legOf(withdrawal),
          );
          // Applied by these writes, so sent and final in the same commit: nothing in between is ever on disk.
          return {
            writes: [...transfer, ...booked.writes],
            events: booked.events,
            continueWith: [
              { type: 'withdrawal.broadcast', at },
              { type: 'withdrawal.confirm', at },
            ],
          };
        },
      },
    );
    // Not accepted: another caller moved it on first; its state is the answer.
    return view.context;
  }

  /** A signed or broadcast withdrawal: the chain's word on its hash, sending the same bytes again while it can still land. */
  private async settle(withdrawal: WithdrawalContext, looks?: number): Promise<WithdrawalContext> {
    const chain = this.deps.chainOf(withdrawal.chain as Chain);
    if (!chain) return withdrawal;
    const wait = this.deps.confirmation ?? { attempts: 30, intervalMs: 1_000 };
    const attempts = looks ?? wait.attempts;
    const { intervalMs } = wait;
    let current = withdrawal;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const status = await chain.confirmation(current.txSignature!);
      if (status === 'confirmed') return this.confirm(current);
      if (status === 'failed') return this.fail(current, 'Transaction failed on chain');
      if (status === 'unknown') {
        const outcome = await chain.rebroadcast({
          txSignature: current.txSignature!,
          signedTx: current.signedTx!,
          ...(current.validUntilHeight === undefined ? {} : { validUntilHeight: current.validUntilHeight }),
        });
        if (outcome === 'expired') return this.fail(current, WITHDRAWAL_MESSAGES.expired);
      }
      if (current.status === 'signed') current = await this.mark(current, { type: 'withdrawal.broadcast', at: this.deps.clock.now() });
      if (attempt + 1 < attempts) await sleep(intervalMs);
    }
    return current;
  }

  /** `confirmed`, with the position it books in the same commit. */
  private async confirm(withdrawal: WithdrawalContext): Promise<WithdrawalContext> {
    const subject = subjectOf(withdrawal);
    const leg = legOf(withdrawal);
    const { view } = await this.deps.withdrawals.send(
      withdrawal.withdrawalId,
      { type: 'withdrawal.confirm', at: this.deps.clock.now() },
      {
        join: () => this.deps.positions.withdrawalWrites(subject, `withdrawal:${withdrawal.withdrawalId}`, leg),
      },
    );
    return view.context;
  }

  /** `failed`: nothing moved (or only a fee), so the cap's share is given back. */
  private async fail(withdrawal: WithdrawalContext, reason: string): Promise<WithdrawalContext> {
    const { view, accepted } = await this.deps.withdrawals.send(withdrawal.withdrawalId, {
      type: 'withdrawal.fail',
      at: this.deps.clock.now(),
      reason,
    });
    if (accepted) await this.reservations(withdrawal).compensate();
    return view.context;
  }

  /** What a withdrawal took when it was created (its share of the day's cap), to give back when nothing moved. */
  private reservations(withdrawal: WithdrawalContext): Reservations {
    const taken = new Reservations();
    const { capDay, valueUsd } = withdrawal;
    if (capDay && valueUsd !== null) taken.hold('withdrawal_cap', () => this.deps.cap.release(subjectOf(withdrawal), valueUsd, capDay));
    return taken;
  }

  private async mark(withdrawal: WithdrawalContext, event: WithdrawalEvent): Promise<WithdrawalContext> {
    return (await this.deps.withdrawals.send(withdrawal.withdrawalId, event)).view.context;
  }

  /** A withdrawal the switch holds may be sent once it is released (503, retryable): it stays `requested`. */
  private assertChainOpen(chain: Chain): Promise<void> {
    return killSwitchOpen(this.deps.killSwitch, chain, { retryable: true });
  }

  /**
   * What the wallet can still withdraw of `token`: the balance the chain reports, less the
   * amounts of its withdrawals in flight whose transfer has not changed that balance yet.
   * What a balance reflects is the chain's word on the transfer's hash (`confirmation`):
   * `confirmed` or `failed` means it landed (paper: at broadcast, when the ledger moves; EVM:
   * once mined; Solana: once its status is final at the balance's commitment), anything else
   * (`requested`, no hash yet; `pending`, `unknown`, or no answer) holds its amount back.
   *
   * The hashes are looked up before the balance is read, and the balance is read once before
   * them too: equal reads mean no transfer landed in between, so lookups and balance agree and
   * nothing is counted twice. A transfer landing in between makes the round run again (each
   * extra round needs one more landing, so open + 1 rounds suffice without outside deposits);
   * if they never agree, the last answer counts the in-between landings twice: refusing a
   * withdrawal that fits, never allowing one that does not.
   */
  private async available(chain: ChainPort, wallet: WalletView, token: string): Promise<bigint> {
    const balance = async () => BigInt(await chain.tokenBalance(wallet.address, token));
    let open = await this.openWithdrawals(wallet.walletId, token);
    let before = await balance();
    // None in flight: nothing to hold back, and no landing to tell apart, so the balance read is the answer.
    if (open.length === 0) return before;
    for (let round = 0; ; round++) {
      open = await this.notLanded(chain, open);
      const after = await balance();
      const held = open.reduce((total, withdrawal) => total + BigInt(withdrawal.amount), 0n);
      if (after === before || round >= open.length) return after - held;
      before = after;
    }
  }

  /**
   * Of these withdrawals, as they stand now (one signed since the list was read has a hash to
   * look up), those whose transfer has not landed: still unsigned, or a hash the chain does not
   * show as landed (an unanswered lookup counts as not landed). A closed one holds nothing back.
   */
  private async notLanded(chain: ChainPort, withdrawals: WithdrawalContext[]): Promise<WithdrawalContext[]> {
    const looked = await Promise.all(
      withdrawals.map(async (listed) => {
        const withdrawal = (await this.deps.withdrawals.get(listed.withdrawalId))?.context ?? listed;
        if (withdrawal.status === 'confirmed' || withdrawal.status === 'failed') return null;
        if (!withdrawal.txSignature) return withdrawal;
        const status = await chain.confirmation(withdrawal.txSignature).catch(() => 'unknown' as const);
        return status === 'confirmed' || status === 'failed' ? null : withdrawal;
      }),
    );
    return looked.filter((withdrawal): withdrawal is WithdrawalContext => withdrawal !== null);
  }

  /** This wallet's withdrawals of `token` in flight (`requested`, `signed`, `broadcast`). */
  private async openWithdrawals(walletId: string, token: string): Promise<WithdrawalContext[]> {
    const open: WithdrawalContext[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.withdrawals.find(
        { index: 'walletOpen', eq: `${walletId}|open` },
        { limit: 200, ...(cursor ? { cursor } : {}) },
      );
      for (const { context } of page.items) if (context.token === token) open.push(context);
      cursor = page.nextCursor;
    } while (cursor);
    return open;
  }

  private async find(subject: TradingSubject, withdrawalId: string): Promise<WithdrawalContext | null> {
    const found = (await this.deps.withdrawals.get(withdrawalId))?.context;
    // Another account's withdrawal is indistinguishable from none.
    if (!found || found.subjectType !== subject.type || found.subjectId !== subject.id) return null;
    return found;
  }
}

/** What the request that created a withdrawal checked moments ago: its first send does not read it again. */
interface CheckedNow {
  wallet: WalletView;
}

/** The position a withdrawal takes out, booked with its `confirmed`. */
function legOf(withdrawal: WithdrawalContext): TokenLeg {
  return {
    chain: withdrawal.chain,
    token: withdrawal.token,
    symbol: withdrawal.symbol,
    decimals: withdrawal.decimals,
    amount: BigInt(withdrawal.amount),
    priceUsd: 0,
  };
}

/** Thrown from `beforeBroadcast` when another caller's signed bytes were committed first: ours are never sent. */
class SignedElsewhere extends Error {}

function subjectOf(withdrawal: WithdrawalContext): TradingSubject {
  return { type: withdrawal.subjectType, id: withdrawal.subjectId };
}

/** A key reused with another request is refused, even after its idempotency record expired. */
function sameRequest(withdrawal: WithdrawalContext, caller: WithdrawCaller): WithdrawalContext {
  if (withdrawal.requestDigest !== undefined && caller.requestDigest !== undefined && withdrawal.requestDigest !== caller.requestDigest) {
    throw new AppError('IDEMPOTENCY_MISMATCH', IDEMPOTENCY_MESSAGES.mismatch);
  }
  return withdrawal;
}

/** A failed withdrawal as its refusal: a shortfall is the balance's 400, anything else a 422 naming it. */
function failureOf(withdrawal: WithdrawalContext): AppError {
  const details = { withdrawalId: withdrawal.withdrawalId, status: withdrawal.status };
  if (withdrawal.reason === WITHDRAWAL_MESSAGES.balance || /^Insufficient/.test(withdrawal.reason ?? '')) {
    return new AppError('INSUFFICIENT_BALANCE', WITHDRAWAL_MESSAGES.balance, { details });
  }
  if (withdrawal.reason === WITHDRAWAL_MESSAGES.disabled) return AppError.forbidden(WITHDRAWAL_MESSAGES.disabled);
  return new AppError('VALIDATION_ERROR', `Withdrawal failed: ${withdrawal.reason ?? 'failed'}`, { kind: 'unprocessable', details });
}

/** The withdrawal an account's idempotency key stands for, the same on every process and retry (the key's case does not count). */
export function derivedWithdrawalId(subject: TradingSubject, key: string): string {
  return derivedId('wd', `${subject.type}:${subject.id}|withdrawal|${key.toLowerCase()}`);
}
