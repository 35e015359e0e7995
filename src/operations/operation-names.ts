import type { agentAdminOperations } from './definitions/agent-admin.ops.js';
import type { agentControlOperations } from './definitions/agent-control.ops.js';
import type { agentOperations } from './definitions/agent.ops.js';
import type { auditLogOperations } from './definitions/audit-log.ops.js';
import type { auditVerifyOperations } from './definitions/audit-verify.ops.js';
import type { botSurfaceOperations } from './definitions/bot-surface.ops.js';
import type { botOperations } from './definitions/bot.ops.js';
import type { cardOperations } from './definitions/card.ops.js';
import type { catalogSettingsOperations } from './definitions/catalog-settings.ops.js';
import type { chatOperations } from './definitions/chat.ops.js';
import type { commandOperations } from './definitions/command.ops.js';
import type { dcaOperations } from './definitions/dca.ops.js';
import type {
  dcaDueOperations,
  erc8004OwnershipDueOperations,
  identityTokenDueOperations,
  keyDueOperations,
  orderDueOperations,
} from './definitions/due-job.ops.js';
import type { keyOperations } from './definitions/key.ops.js';
import type { killSwitchOperations } from './definitions/kill-switch.ops.js';
import type { oauthDueOperations, oauthOperations } from './definitions/oauth.ops.js';
import type { portfolioOperations } from './definitions/portfolio.ops.js';
import type { riskOperations } from './definitions/risk.ops.js';
import type { signingKeyOperations } from './definitions/signing-keys.ops.js';
import type { stepUpOperations } from './definitions/step-up.ops.js';
import type { tradingConfigOperations } from './definitions/trading-config.ops.js';
import type { tradingInfoOperations } from './definitions/trading-info.ops.js';
import type { tradingOperations } from './definitions/trading.ops.js';
import type { valueHistoryOperations } from './definitions/value-history.ops.js';
import type { walletOperations } from './definitions/wallet.ops.js';
import type { widgetOperations, widgetSessionOperations } from './definitions/widget.ops.js';
import type { withdrawalOperations } from './definitions/withdrawals.ops.js';

/** The names a definitions factory declares (`defineOperation` keeps each name's literal type). */
type NamesOf<F extends (...args: never[]) => readonly { name: string }[]> = ReturnType<F>[number]['name'];

/**
 * The name of every operation the service defines, as a type: what a REST binding, a due-job
 * route or a chat command refers to an operation by. A misspelled or removed name is a compile
 * error there, not a route that answers 404 at run time. A new definitions factory joins here.
 */
export type OperationName =
  | NamesOf<typeof agentAdminOperations>
  | NamesOf<typeof agentControlOperations>
  | NamesOf<typeof agentOperations>
  | NamesOf<typeof auditLogOperations>
  | NamesOf<typeof auditVerifyOperations>
  | NamesOf<typeof botSurfaceOperations>
  | NamesOf<typeof botOperations>
  | NamesOf<typeof cardOperations>
  | NamesOf<typeof catalogSettingsOperations>
  | NamesOf<typeof chatOperations>
  | NamesOf<typeof commandOperations>
  | NamesOf<typeof dcaOperations>
  | NamesOf<typeof dcaDueOperations>
  | NamesOf<typeof erc8004OwnershipDueOperations>
  | NamesOf<typeof identityTokenDueOperations>
  | NamesOf<typeof keyDueOperations>
  | NamesOf<typeof orderDueOperations>
  | NamesOf<typeof keyOperations>
  | NamesOf<typeof killSwitchOperations>
  | NamesOf<typeof oauthOperations>
  | NamesOf<typeof oauthDueOperations>
  | NamesOf<typeof portfolioOperations>
  | NamesOf<typeof riskOperations>
  | NamesOf<typeof signingKeyOperations>
  | NamesOf<typeof stepUpOperations>
  | NamesOf<typeof tradingConfigOperations>
  | NamesOf<typeof tradingInfoOperations>
  | NamesOf<typeof tradingOperations>
  | NamesOf<typeof valueHistoryOperations>
  | NamesOf<typeof walletOperations>
  | NamesOf<typeof widgetOperations>
  | NamesOf<typeof widgetSessionOperations>
  | NamesOf<typeof withdrawalOperations>;
