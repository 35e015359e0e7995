import { isAppError } from '../../kernel/errors/app-error.js';
import type { DcaService } from './dca.service.js';
import type { Intent, TokenRef } from '../chat/intent.types.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import type { DcaCommands } from '../chat/trading-command.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';

type DcaIntent = Extract<Intent, { intent: 'dca_create' | 'dca_pause' | 'dca_resume' | 'dca_approve' | 'dca_stats' }>;

/** DCA intents of the command route, executed by the strategies service. */
export class DcaCommandRunner implements DcaCommands {
  constructor(private readonly dca: DcaService) {}

  /** `caller.scope`: the scope approving (`dca approve`); internal callers without one act as the owner, as for orders. */
  async execute(subject: TradingSubject, intent: DcaIntent, caller: { userId?: string; scope?: KeyScope } = {}): Promise<string> {
    const { userId } = caller;
    switch (intent.intent) {
      case 'dca_create': {
        const p = intent.params;
        const base = p.name ?? `${tokenText(p.outputToken).toLowerCase()}-every-${p.interval.every}-${p.interval.unit}`.slice(0, 48);
        // A generated name that is taken gets a number; a name the user chose is theirs to change.
        for (let attempt = 1; ; attempt++) {
          const name = p.name || attempt === 1 ? base : `${base}-${attempt}`;
          try {
            const created = await this.dca.create(subject, userId, {
              name,
              inputToken: tokenText(p.inputToken),
              outputToken: tokenText(p.outputToken),
              amount: p.amount,
              interval: p.intervalText,
              ...(p.maxBuys !== undefined ? { maxBuys: p.maxBuys } : {}),
              ...(p.slippageBps !== undefined ? { slippageBps: p.slippageBps } : {}),
            });
            const plan = `buying ${created.amount} ${created.inputSymbol} of ${created.outputSymbol} ${created.interval}`;
            // Held like any order the approval rule would hold: it buys nothing until approved.
            if (created.status === 'pending_approval') {
              return `Strategy ${created.name} created, waiting for approval (${created.holdReason ?? 'the approval policy holds its buys'}): it will start ${plan} once approved with "dca approve ${created.name}".`;
            }
            return `Strategy ${created.name} created: ${plan}.`;
          } catch (error) {
            if (p.name || attempt >= 5 || !isAppError(error) || error.kind !== 'conflict') throw error;
          }
        }
      }
      case 'dca_pause': {
        const paused = await this.dca.pause(subject, userId, intent.params.name);
        return paused.length === 0 ? 'No active DCA strategy to pause.' : `Paused: ${paused.map((s) => s.name).join(', ')}.`;
      }
      case 'dca_resume': {
        const resumed = await this.dca.resume(subject, userId, intent.params.name);
        return resumed.length === 0 ? 'No paused DCA strategy to resume.' : `Resumed: ${resumed.map((s) => s.name).join(', ')}.`;
      }
      case 'dca_approve': {
        const name = intent.params.name;
        if (!name) {
          // Approving every waiting strategy at once is too easy to do by mistake: ask which one.
          const waiting = (await this.dca.list(subject)).filter((s) => s.status === 'pending_approval').map((s) => s.name);
          return waiting.length === 0
            ? 'No DCA strategy is waiting for approval.'
            : `Which strategy? Write "dca approve <name>". Waiting for approval: ${waiting.join(', ')}.`;
        }
        const approved = await this.dca.approve(subject, userId, name, caller.scope ?? 'manage');
        return `Approved: ${approved.name} is active, buying ${approved.amount} ${approved.inputSymbol} of ${approved.outputSymbol} ${approved.interval}.`;
      }
      case 'dca_stats': {
        const stats = await this.dca.stats(subject);
        const rows = stats.strategies.filter((s) => !intent.params.name || s.name === intent.params.name);
        if (rows.length === 0) return intent.params.name ? `No DCA strategy named ${intent.params.name}.` : 'No DCA strategies yet.';
        return rows
          .map(
            (s) =>
              `${s.name} (${s.status}): ${s.buys} buys${s.skipped > 0 ? ` (${s.skipped} ticks skipped)` : ''}, spent ${s.spent} ${s.inputSymbol} ($${s.spentUsd}), acquired ${s.acquired} ${s.outputSymbol}, PnL $${s.pnlUsd ?? '?'}${s.nextRun ? `, next ${s.nextRun}` : ''}`,
          )
          .join('\n');
      }
    }
  }
}

function tokenText(token: TokenRef): string {
  return token.kind === 'symbol' ? token.symbol : token.address;
}
