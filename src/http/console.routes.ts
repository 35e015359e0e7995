/**
 * The operator console, a Preact app built into `console/dist`: hashed assets under
 * `/assets/` are cached for good (`immutable`: a new build has new names), `index.html` is
 * revalidated on every load (`no-cache`) so a deploy shows at once. The console's pages are
 * client-side paths answered with index.html; `/hub/api-keys` redirects to the agents page
 * (the key management flow). Nothing under `/api`, `/mcp` or `/.well-known` is touched: their 404s keep
 * their envelopes. Without a build the routes answer nothing (the 404 envelope).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';
import type { Profile } from '../config/config.schema.js';
import { noQuery } from './routes/route-schemas.js';

/** Where the console lands, and where `/hub/api-keys` goes (the key management flow: the agents page). */
const CONSOLE_AGENTS_PATH = '/agents';
/** Client-side pages, answered with index.html. */
const CONSOLE_PAGES = [
  '/',
  '/ops',
  // The consent page the OAuth authorize route sends the browser to (the request's id in the query).
  '/oauth/consent',
  // One actor in the ops inspector.
  '/ops/actors/:type/:id',
  CONSOLE_AGENTS_PATH,
  `${CONSOLE_AGENTS_PATH}/:agentId`,
  ...['trading', 'portfolio', 'dca'].map((section) => `${CONSOLE_AGENTS_PATH}/:agentId/${section}`),
  // Legacy bots: their keys, messaging connectors, web chat, fees by channel, agent card and widget.
  '/bots',
  '/bots/:botId',
  ...['messaging', 'chat', 'fees', 'card', 'widget'].map((section) => `/bots/:botId/${section}`),
];
/**
 * The page may load its own scripts and styles, talk to its own origin and show the TOTP QR code
 * (a data: URL); nothing inline, no framing (as every other answer of the service).
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The console's icon, also at `/favicon.ico` where browsers and link previews ask without reading
 * the page (an SVG: every current browser takes it whatever the name).
 */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5bd3"/>' +
  '<path d="M9 23 16 8l7 15M12 18h8" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/**
 * The widget's live preview, framed by the console's widget page: the real embed script on a bare
 * page of the console's origin. Its own policy, because the widget styles its shadow root with an
 * inline style element, which the console's page refuses; scripts still come from this origin only,
 * and only this origin may frame it.
 */
const PREVIEW_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** The preview page of one bot's widget; the id goes into the script's address URI-encoded, which also keeps it inside the attribute. */
const previewPage = (botId: string): string =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>Widget preview</title></head><body><script src="/api/widget/${encodeURIComponent(botId)}/script.js" async></script></body></html>`;

/** Where the console reads what it may offer on this service (public, like the page itself). */
export const CONSOLE_CONFIG_PATH = '/api/nest/console/config';

/** What the console may offer here: the test wallet on the embedded profile only (an evaluation install, never production). */
export interface ConsoleConfig {
  profile: Profile;
  testWallet: boolean;
}

/** Routes of the built console in `dir` (its `index.html` and `assets/`), and its configuration for this service's `profile`. */
export function createConsoleRoutes(options: { dir: string; profile: Profile }): Router {
  const router = express.Router();
  const config: ConsoleConfig = { profile: options.profile, testWallet: options.profile === 'embedded' };
  // Answered with or without a build: the SDK and other consoles read it too.
  router.get(CONSOLE_CONFIG_PATH, noQuery, (_req, res) => {
    res.json(config);
  });
  router.get('/hub/api-keys', (_req, res) => res.redirect(302, CONSOLE_AGENTS_PATH));
  router.get(['/favicon.ico', '/favicon.svg'], (_req, res) => {
    res.set({ 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' });
    res.send(FAVICON_SVG);
  });

  router.get('/bots/:botId/widget/preview', noQuery, (req, res) => {
    res.set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': PREVIEW_CSP,
      'X-Frame-Options': 'SAMEORIGIN',
    });
    res.send(previewPage(String(req.params.botId)));
  });

  const indexFile = join(options.dir, 'index.html');
  if (!existsSync(indexFile)) return router;
  const index = readFileSync(indexFile);

  router.use(
    '/assets',
    express.static(join(options.dir, 'assets'), {
      index: false,
      fallthrough: true,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => res.setHeader('Content-Security-Policy', CONSOLE_CSP),
    }),
  );
  // One route per page: a route's path is its metrics label, and a list of paths would be one label of them all.
  for (const page of CONSOLE_PAGES)
    router.get(page, (_req, res) => {
      res.set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': CONSOLE_CSP });
      res.send(index);
    });
  return router;
}
