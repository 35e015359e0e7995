/**
 * Headers every answer of the server carries (REST, MCP, event streams, errors, 404s), set
 * once where the server hands a request on (service.composition.ts), before any route runs.
 * Answers are JSON for programs, never a page to render or frame: a browser must not sniff
 * them into HTML, nor let another site frame them (clickjacking). The docs page, the one
 * HTML answer, replaces the CSP with its own (which also forbids framing).
 */
import type { ServerResponse } from 'node:http';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

/** Sets the headers on `res`; a route may still replace one (the docs page's CSP). */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}
