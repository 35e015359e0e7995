import { type AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { approvalHolds, approvalReason } from '../config/trading-config.rules.js';
import { formatUsd } from '../../kernel/vocabulary/amounts.js';
import type { DailyVolume } from './daily-volume.js';
import { SAFETY_CHECKS, refusedVerdict, type CheckVerdict, type CheckedTrade, type SafetyPath, type TradeRequest } from './safety-path.js';

/**
 * A trade's dry run: the safety path's checks with their verdicts, then the risk policy's
 * daily volume that placing the order would take (read, not reserved), and whether the order
 * would wait for approval. Nothing is placed, reserved or published.
 */

/** The verdicts a preflight answers, in order: the safety path's, then the daily volume. */
export const PREFLIGHT_CHECKS = [...SAFETY_CHECKS, 'daily_volume'] as const;
export type PreflightCheck = (typeof PREFLIGHT_CHECKS)[number];

/** The order the trade would make, as far as the checks priced it. */
export interface TradePreview {
  chain: string;
  inputToken: string;
  inputSymbol: string;
  outputToken: string;
  outputSymbol: string;
  /** Base units, as the order would carry them. */
  amountIn: string;
  expectedOut: string;
  minOut: string;
  priceImpactBps: number;
  slippageBps: number;
  feeAmount: string;
  venue: string;
  /** USD value at the venue's price, to the cent; `null` when the input has no price. */
  valueUsd: string | null;
  walletId: string;
  /** What the order profile would do with the order. */
  approval: 'approval_required' | 'auto_approved';
  approvalReason?: string;
}

export interface TradePreflightResult {
  /** True when every check passed: the trade would be placed now. */
  passed: boolean;
  checks: CheckVerdict<PreflightCheck>[];
  /** Present once every check of the safety path passed (the daily volume may still refuse the trade). */
  trade?: TradePreview;
  asOf: string;
}

export interface TradePreflightDeps {
  safety: Pick<SafetyPath, 'preflight'>;
  volume: Pick<DailyVolume, 'check'>;
  clock: ClockPort;
}

export class TradePreflight {
  constructor(private readonly deps: TradePreflightDeps) {}

  /** Runs every check of a trade without placing it; `credentialRefusal` is the caller's scope refusal for trading, if any. */
  async run(request: TradeRequest, credentialRefusal?: AppError): Promise<TradePreflightResult> {
    const { verdicts, checked } = await this.deps.safety.preflight(request, credentialRefusal);
    const volume: CheckVerdict<PreflightCheck> = checked
      ? await this.dailyVolume(request, checked)
      : { check: 'daily_volume', verdict: 'not_run' };
    const checks: CheckVerdict<PreflightCheck>[] = [...verdicts, volume];
    return {
      passed: checks.every((check) => check.verdict === 'passed'),
      checks,
      ...(checked ? { trade: preview(checked) } : {}),
      asOf: new Date(this.deps.clock.now()).toISOString(),
    };
  }

  private async dailyVolume(request: TradeRequest, checked: CheckedTrade): Promise<CheckVerdict<PreflightCheck>> {
    const limitUsd = checked.config.riskPolicy.dailyVolumeUsd;
    if (limitUsd === undefined) return { check: 'daily_volume', verdict: 'passed' };
    try {
      await this.deps.volume.check(request.subject, checked.valueUsd, limitUsd, this.deps.clock.now());
      return { check: 'daily_volume', verdict: 'passed' };
    } catch (error) {
      if (isAppError(error)) return refusedVerdict('daily_volume', error);
      throw error;
    }
  }
}

function preview(checked: CheckedTrade): TradePreview {
  const { input, output, quote, config } = checked;
  const held = approvalHolds(config.defaultOrderProfile, checked);
  return {
    chain: checked.request.chain,
    inputToken: input.address,
    inputSymbol: input.symbol,
    outputToken: output.address,
    outputSymbol: output.symbol,
    amountIn: checked.amountIn.toString(),
    expectedOut: quote.expectedOut,
    minOut: quote.minOut,
    priceImpactBps: quote.priceImpactBps,
    slippageBps: checked.slippageBps,
    feeAmount: quote.feeAmount,
    venue: quote.venue,
    valueUsd: checked.inputPriceUsd > 0 ? formatUsd(checked.valueUsd) : null,
    walletId: checked.wallet.walletId,
    approval: held ? 'approval_required' : 'auto_approved',
    ...(held ? { approvalReason: approvalReason(config.defaultOrderProfile, checked.valueUsd, checked.inputPriceUsd) } : {}),
  };
}
