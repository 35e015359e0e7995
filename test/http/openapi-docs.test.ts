import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiKeysService } from '../../src/accounts/api-keys.service.js';
import { escapeHtml, renderDocsPage } from '../../src/http/openapi/docs-page.js';
import { serviceOpenApiDocument } from '../../src/http/openapi/service-openapi.js';
import { AGENT_REST_BINDINGS } from '../../src/http/routes/operation.routes.js';
import { ACCOUNT_REST_BINDINGS } from '../../src/http/routes/account.bindings.js';
import type { BotsService } from '../../src/accounts/bots.service.js';
import { auditLogOperations } from '../../src/operations/definitions/audit-log.ops.js';
import { botOperations } from '../../src/operations/definitions/bot.ops.js';
import { agentOperations } from '../../src/operations/definitions/agent.ops.js';
import { keyOperations } from '../../src/operations/definitions/key.ops.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { defineOperation } from '../../src/operations/operation-definition.js';

const HOSTILE = `<script>alert(1)</script><img src=x onerror="alert('2')">&amp; </pre></details><a href="https://evil.example">x</a>`;

/** The service catalog plus an operation whose texts (which configuration and plugins supply) try to break out. */
function hostileCatalog(): OperationCatalog {
  return new OperationCatalog().register(
    ...agentOperations({} as Parameters<typeof agentOperations>[0]),
    ...keyOperations({} as ApiKeysService),
    ...botOperations({} as BotsService, {} as ApiKeysService),
    ...auditLogOperations({} as never),
    defineOperation({
      name: `evil_tool"><b>`,
      description: HOSTILE,
      family: 'research',
      minScope: 'read',
      principals: ['agent'],
      input: z.object({ query: z.string().describe(HOSTILE), 'k<i>': z.literal(HOSTILE).optional() }),
      handler: async () => ({}),
    }),
  );
}

/** Elements the page itself writes; anything else would be markup that leaked through from data. */
const PAGE_ELEMENTS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'header',
  'h1',
  'small',
  'p',
  'a',
  'nav',
  'main',
  'section',
  'h2',
  'article',
  'h3',
  'span',
  'code',
  'dl',
  'dt',
  'dd',
  'pre',
  'details',
  'summary',
  'strong',
]);

describe('docs page', () => {
  const page = renderDocsPage(serviceOpenApiDocument(hostileCatalog(), [...AGENT_REST_BINDINGS, ...ACCOUNT_REST_BINDINGS]));

  it('lists every route grouped by tag with method, path, auth and schemas, and the MCP tools', () => {
    expect(page.startsWith('<!doctype html>')).toBe(true);
    for (const binding of AGENT_REST_BINDINGS) {
      expect(page).toContain(
        `<span class="method ${binding.method}">${binding.method.toUpperCase()}</span> <code>${binding.path.replace(/:(\w+)/g, '{$1}')}</code>`,
      );
    }
    expect(page).toContain('<section id="tag-Legacy_bots"><h2>Legacy bots</h2>');
    expect(page).toContain('<code>/api/nest/bots/{botId}/mcp/logs</code> <span class="tag">deprecated</span>');
    expect(page).toContain('<dt>Auth</dt><dd>Session (Bearer JWT) + X-CSRF-Token</dd>');
    expect(page).toContain('<dt>Auth</dt><dd>Session (Bearer JWT) or API key (Bearer mcpk_…)</dd>');
    expect(page).toContain('<section id="mcp"><h2>MCP tools</h2>');
    for (const tool of ['agent_status', 'agent_pause', 'agent_keys_create']) expect(page).toContain(`<h3><code>${tool}</code>`);
    expect(page).toContain('&quot;stepUpToken&quot;');
  });

  it('escapes every piece of data: only the page’s own elements, no script, nothing loaded from elsewhere', () => {
    const elements = new Set([...page.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)].map((match) => match[1]!.toLowerCase()));
    expect([...elements].filter((name) => !PAGE_ELEMENTS.has(name))).toEqual([]);
    expect(page).not.toMatch(/<script|<img/i);
    // Inside the page's own tags: no event handlers, no sources, links only within the page or to the spec.
    const tags = [...page.matchAll(/<[a-zA-Z][^>]*>/g)].map((match) => match[0]);
    expect(tags.filter((tag) => /\son\w+\s*=|\ssrc\s*=|javascript:/i.test(tag))).toEqual([]);
    const links = tags.flatMap((tag) => [...tag.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!));
    expect(links.filter((href) => !href.startsWith('#') && href !== '/api/nest/openapi.json')).toEqual([]);
    expect(page).not.toContain('evil_tool"><b>');
    expect(page).toContain('<h3><code>evil_tool&quot;&gt;&lt;b&gt;</code>');
    expect(page).toContain(escapeHtml(HOSTILE));
    // The hostile text shows (escaped) wherever it was used: description, schema descriptions, enum.
    expect(page.split(escapeHtml('<script>')).length).toBeGreaterThan(2);
    expect(page).toContain('id="tool-evil_tool___b_"');
  });

  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
