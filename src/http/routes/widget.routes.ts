import { Router, type Request, type RequestHandler, type Response } from 'express';
import { RATE_POLICIES, type RateLimiterPort } from '../../../kernel/ports/rate-limiter.port.js';
import { rateLimitHeaders, tooManyRequests } from '../../surface-common/rate-limit-answers.js';
import type { OperationInvoker } from '../../operations/operation-invoker.js';
import type { OperationName } from '../../operations/operation-names.js';
import type { WidgetCaller } from '../../operations/operation.types.js';
import { originNotAllowed } from '../../widget/widget-messages.js';
import type { WidgetScript } from '../../widget/widget-script.js';
import type { WidgetSession } from '../../widget/widget-sessions.service.js';
import { widgetChallengeSchema, widgetSignInSchema } from '../../widget/widget.schemas.js';
import { requestContext } from '../request-context.middleware.js';
import { objectBody, parseBody } from '../validate.js';
import { noQuery } from './route-schemas.js';

/**
 * The widget's session gate, outside the catalog like sign-in (its caller has no credential
 * yet): origins, sessions, the owner's wallet sign-in. What a session then does (chat, client
 * events) is a catalog operation called through the invoker.
 */
export interface WidgetGate {
  /** Whether `origin` may talk to the bot's widget: the live bot as read for that answer, or null. */
  admit(botId: string, origin: string | undefined): Promise<WidgetCaller['bot'] | null>;
  init(botId: string, origin: string | undefined): Promise<{ sessionToken: string; expiresAt: string }>;
  /** `allowed`: what `admit` answered for this request already (its CORS check); absent, it is asked again. */
  session(botId: string, token: string | undefined, origin: string | undefined, allowed?: boolean): Promise<WidgetSession>;
  /** The owner's sign-in message, naming the session's origin (the page the wallet sees). */
  challenge(
    session: WidgetSession,
    input: { chain: 'solana' | 'evm'; walletAddress: string },
  ): Promise<{ nonce: string; expiresAt: string; message: string }>;
  signIn(session: WidgetSession, input: { message: string; signature: string }): Promise<{ owner: true; walletAddress: string }>;
}

export interface WidgetRoutesDeps {
  widget: WidgetGate;
  invoker: Pick<OperationInvoker, 'invoke'>;
  limiter: RateLimiterPort;
  /** The per-IP budget of public routes: `init` is counted against it (no session exists yet). */
  publicLimit: RequestHandler;
  script: () => Promise<WidgetScript>;
}

const BASE = '/api/widget/:botId';
/** The routes a page calls from its own origin (CORS), each but `init` with the session token. */
const CALLS = ['init', 'chat', 'client-event', 'sign-in/nonce', 'sign-in'] as const;
const BOT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Where the CORS check leaves whether this request's origin may use this bot's widget (`res.locals`). */
const ALLOWED = 'widgetOriginAllowed';
const ADMITTED_BOT = 'widgetAdmittedBot';
/** How long a browser may reuse the script before revalidating it (ETag). */
const SCRIPT_MAX_AGE_S = 300;

/**
 * The public chat widget (the legacy routes): its script, and the calls a host page makes to the
 * service. CORS headers go only to the origins the bot's owner allowed, preflights included;
 * any other origin is 403 `Origin not allowed` without them, so its page cannot read answers.
 */
export function createWidgetRoutes(deps: WidgetRoutesDeps): Router {
  const { widget } = deps;
  const router = Router();

  router.get(`${BASE}/script.js`, async (req, res) => {
    const script = await deps.script();
    res.set({
      'Content-Type': 'text/javascript; charset=utf-8',
      // Revalidated after a few minutes, so a new release reaches pages within them.
      'Cache-Control': `public, max-age=${SCRIPT_MAX_AGE_S}`,
      ETag: script.etag,
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.send(script.body);
  });

  const botIdOf = (req: Request): string => {
    const botId = String(req.params.botId);
    if (!BOT_ID.test(botId)) throw originNotAllowed();
    return botId;
  };

  // CORS for allowed origins only, set before the route runs so its errors carry them too.
  const cors: RequestHandler = async (req, res, next) => {
    const origin = req.get('origin');
    res.vary('Origin');
    const admitted = await widget.admit(botIdOf(req), origin);
    const allowed = admitted !== null;
    // The session check and the call of this same request take the answer, and the bot as read
    // for it, instead of reading the bot again.
    res.locals[ALLOWED] = allowed;
    if (admitted) res.locals[ADMITTED_BOT] = admitted;
    if (allowed) {
      res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'Retry-After, X-RateLimit-Remaining' });
    }
    next();
  };
  for (const call of CALLS) {
    router.options(`${BASE}/${call}`, cors, (_req, res) => {
      if (!res.get('Access-Control-Allow-Origin')) throw originNotAllowed();
      res.set({
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Max-Age': '600',
      });
      res.status(204).end();
    });
  }

  // A session's calls: 30 a minute per session (limits not shown).
  const sessionOf = async (req: Request, res: Response): Promise<WidgetSession> => {
    const token = /^Bearer[ ]+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const allowed = res.locals[ALLOWED] as boolean | undefined;
    const session = await widget.session(botIdOf(req), token, req.get('origin'), allowed);
    const decision = await deps.limiter.hit(`widget:${session.id}`, RATE_POLICIES.widget);
    res.set(rateLimitHeaders(decision));
    if (!decision.allowed) throw tooManyRequests(decision);
    return session;
  };

  router.post(`${BASE}/init`, cors, deps.publicLimit, noQuery, async (req, res) => {
    res.json(await widget.init(botIdOf(req), req.get('origin')));
  });
  // A session's capabilities go through the catalog as the `widget` principal, on the session's bot.
  const invoke = (name: OperationName, session: WidgetSession, req: Request, res: Response) =>
    deps.invoker.invoke({
      name,
      input: objectBody(req),
      ctx: {
        principal: {
          type: 'widget-session',
          id: session.id,
          botId: session.botId,
          origin: session.origin,
          owner: session.owner !== undefined,
          ...(res.locals[ADMITTED_BOT] ? { bot: res.locals[ADMITTED_BOT] as NonNullable<WidgetCaller['bot']> } : {}),
        },
        scope: session.owner ? 'trade' : 'read',
        subject: { type: 'bot', id: session.botId },
        surface: 'widget',
        ...requestContext(res),
      },
      viewer: { kind: 'widget', scope: session.owner ? 'trade' : 'read' },
    });
  router.post(`${BASE}/chat`, cors, noQuery, async (req, res) => {
    const session = await sessionOf(req, res);
    res.json(await invoke('widget_chat', session, req, res));
  });
  router.post(`${BASE}/client-event`, cors, noQuery, async (req, res) => {
    const session = await sessionOf(req, res);
    res.status(202).json(await invoke('widget_event', session, req, res));
  });
  router.post(`${BASE}/sign-in/nonce`, cors, noQuery, async (req, res) => {
    const session = await sessionOf(req, res);
    res.json(await widget.challenge(session, parseBody(widgetChallengeSchema, req)));
  });
  router.post(`${BASE}/sign-in`, cors, noQuery, async (req, res) => {
    const session = await sessionOf(req, res);
    res.json(await widget.signIn(session, parseBody(widgetSignInSchema, req)));
  });
  return router;
}
