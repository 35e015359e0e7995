import { AppError } from '../../kernel/errors/app-error.js';

/** The widget's refusals and replies, word for word (chat widget; the rest are ours, docs/DECISIONS.md). */
export const WIDGET_MESSAGES = {
  originNotAllowed: 'Origin not allowed',
  sessionExpired: 'Widget session expired',
  sessionInvalid: 'Invalid widget session',
  notOwner: 'This wallet does not own the bot',
  signInToTrade: 'Sign in as the owner to trade.',
} as const;

/** 403: the page's origin is not one the bot's owner allowed (or the widget is off, or there is no such bot). */
export const originNotAllowed = (): AppError => AppError.forbidden(WIDGET_MESSAGES.originNotAllowed);
