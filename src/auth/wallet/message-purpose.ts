/**
 * What a signed wallet message was made for: a claim of
 * an agent, the bot owner's sign-in inside a chat widget, an ERC-8004 onboarding, or anything
 * else, an ordinary sign-in. Each route takes only its own purpose, so a signature collected
 * for one (a claim) cannot be spent on another (an operator session). Every route classifies
 * with this one function over the text as sent: what one route takes as its own, every other
 * route sees as that purpose too.
 */
import { walletAuthError, WALLET_AUTH_MESSAGES } from './wallet-auth.errors.js';

export type MessagePurpose = 'sign-in' | 'claim' | 'widget' | 'onboarding';

/** How the statement of each purpose that has one begins (any case): `Claim agent <agentId>`, `Onboard an agent at <host>`. */
const PURPOSE_STATEMENT_PREFIXES = { claim: 'Claim', widget: 'Widget', onboarding: 'Onboard' } as const;

/** The statement the service writes into the widget owner's sign-in message. */
export const WIDGET_SIGN_IN_STATEMENT = "Widget sign-in: trade as the bot's owner";

/** The message purposes each route takes. */
const TAKEN_BY: Record<MessagePurpose, readonly MessagePurpose[]> = {
  'sign-in': ['sign-in'],
  claim: ['claim'],
  widget: ['widget'],
  // Plain EIP-4361 onboardings (no statement, or a sign-in's) were the only form before onboarding had its own.
  onboarding: ['onboarding', 'sign-in'],
};

const AGENT_HEADER = / wants you to sign in with your Agent account:$/;

/** The purpose `message` was made for; text in no known format is a sign-in's (its own parser refuses it). */
export function messagePurpose(message: string): MessagePurpose {
  const lines = message.split(/\r?\n/);
  // The SIWA form (an ERC-8004 identity's lines, or SIWA's own header) exists only for onboarding.
  if (AGENT_HEADER.test(lines[0] ?? '') || lines.some((line) => line.startsWith('Agent ID:') || line.startsWith('Agent Registry:'))) {
    return 'onboarding';
  }
  const statement = statementOf(lines)?.trim().toLowerCase();
  if (statement === undefined) return 'sign-in';
  for (const [purpose, prefix] of Object.entries(PURPOSE_STATEMENT_PREFIXES) as Array<[MessagePurpose, string]>) {
    if (statement.startsWith(prefix.toLowerCase())) return purpose;
  }
  return 'sign-in';
}

/** 401 `Unauthorized` unless `message` was made for `route`; the nonce it carries stays unspent. */
export function requirePurpose(message: string, route: MessagePurpose): void {
  const purpose = messagePurpose(message);
  if (!TAKEN_BY[route].includes(purpose))
    throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, `message made for ${purpose}, not ${route}`);
}

/**
 * The statement of a SIWS or EIP-4361 message: the one line between blank lines after the
 * header and the address, where both formats put it (and nowhere else).
 */
function statementOf(lines: readonly string[]): string | undefined {
  return lines[2] === '' && lines[4] === '' && lines[3] ? lines[3] : undefined;
}
