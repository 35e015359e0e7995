/**
 * The readable reference at `GET /api/nest/docs`, rendered from the OpenAPI document on
 * the server: one self-contained page, no script, no external resource, every value
 * escaped (descriptions and schemas come from the catalog, which configuration can change).
 */
import type { JsonObject } from './route-doc.types.js';

/** Markup that is already safe; anything else interpolated into `html` is escaped. */
class SafeHtml {
  constructor(readonly value: string) {}
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/** Template tag: escapes every interpolation except `SafeHtml` (and arrays of them). */
function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  const render = (value: unknown): string => {
    if (value instanceof SafeHtml) return value.value;
    if (Array.isArray(value)) return value.map(render).join('');
    if (value === undefined || value === null || value === false) return '';
    return escapeHtml(String(value));
  };
  return new SafeHtml(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ''), ''));
}

const pretty = (value: unknown) => html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
/** Anchors carry only safe characters, whatever the name. */
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

const SCHEME_LABELS: Record<string, string> = {
  sessionBearer: 'Session (Bearer JWT)',
  csrfToken: 'X-CSRF-Token',
  preLoginCsrfCookie: 'csrf_pre cookie',
  apiKeyBearer: 'API key (Bearer mcpk_…)',
  refreshToken: 'Refresh token',
  opsBearer: 'Ops token',
};

function authText(security: unknown): string {
  if (!Array.isArray(security) || security.length === 0) return 'None';
  return security
    .map((requirement: Record<string, unknown>) =>
      Object.keys(requirement)
        .map((name) => SCHEME_LABELS[name] ?? name)
        .join(' + '),
    )
    .join(' or ');
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function renderOperation(method: string, path: string, op: JsonObject, components: JsonObject): SafeHtml {
  const parameters = (op.parameters ?? []) as JsonObject[];
  const body = (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema;
  const responses = Object.entries((op.responses ?? {}) as Record<string, JsonObject>).map(([status, response]) => {
    const resolved = resolveResponse(response, components);
    const content = Object.values((resolved.content ?? {}) as Record<string, { schema?: unknown }>)[0];
    return html`<details><summary><strong>${status}</strong> ${String(resolved.description ?? '')}</summary>${content?.schema === undefined ? '' : pretty(content.schema)}</details>`;
  });
  return html`<article class="op" id="${anchor('op', String(op.operationId ?? `${method}${path}`))}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${path}</code>${op.deprecated ? html` <span class="tag">deprecated</span>` : ''}</h3>
<p>${String(op.summary ?? '')}</p>${op.description ? html`<p class="desc">${String(op.description)}</p>` : ''}
<dl><dt>Auth</dt><dd>${authText(op.security)}</dd>
${parameters.length ? html`<dt>Parameters</dt><dd>${pretty(parameters)}</dd>` : ''}
${body === undefined ? '' : html`<dt>Request body</dt><dd>${pretty(body)}</dd>`}
<dt>Responses</dt><dd>${responses}</dd></dl></article>`;
}

/** Shared error responses are `$ref`s; show what they point at. */
function resolveResponse(response: JsonObject, components: JsonObject): JsonObject {
  const ref = typeof response.$ref === 'string' ? response.$ref.split('/').pop() : undefined;
  if (ref === undefined) return response;
  return ((components.responses as Record<string, JsonObject> | undefined)?.[ref] ?? response) as JsonObject;
}

function renderMcp(mcp: JsonObject | undefined): SafeHtml {
  if (!mcp) return html``;
  const tools = ((mcp.tools ?? []) as JsonObject[]).map(
    (
      tool,
    ) => html`<article class="op" id="${anchor('tool', String(tool.name))}"><h3><code>${String(tool.name)}</code> <span class="tag">${String(tool.minScope)}</span> <span class="tag">${String(tool.family)}</span></h3>
<p>${String(tool.description ?? '')}</p><dl><dt>Input schema</dt><dd>${pretty(tool.inputSchema)}</dd></dl></article>`,
  );
  return html`<section id="mcp"><h2>MCP tools</h2>
<p><code>POST ${String(mcp.endpoint)}</code> (${String(mcp.protocol)}); events at <code>GET ${String(mcp.events)}</code>. ${String(mcp.auth)}.</p>
<p>${String(mcp.note)}</p>${tools}</section>`;
}

/** The whole page for an OpenAPI document built by `buildOpenApiDocument`. */
export function renderDocsPage(document: JsonObject): string {
  const info = (document.info ?? {}) as JsonObject;
  const components = (document.components ?? {}) as JsonObject;
  const paths = (document.paths ?? {}) as Record<string, JsonObject>;
  const tags = (document.tags ?? []) as { name: string; description?: string }[];
  const mcp = document['x-mcp'] as JsonObject | undefined;

  const sections = tags.map((tag) => {
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      METHODS.filter((method) => ((item[method] as JsonObject | undefined)?.tags as string[] | undefined)?.includes(tag.name)).map(
        (method) => renderOperation(method, path, item[method] as JsonObject, components),
      ),
    );
    return html`<section id="${anchor('tag', tag.name)}"><h2>${tag.name}</h2><p>${tag.description ?? ''}</p>${operations}</section>`;
  });
  const schemas = Object.entries((components.schemas ?? {}) as Record<string, unknown>).map(
    ([name, schema]) => html`<article class="op" id="${anchor('schema', name)}"><h3><code>${name}</code></h3>${pretty(schema)}</article>`,
  );
  const nav = [
    ...tags.map((tag) => html`<a href="#${anchor('tag', tag.name)}">${tag.name}</a> `),
    mcp ? html`<a href="#mcp">MCP tools</a> ` : '',
    html`<a href="#schemas">Schemas</a>`,
  ];

  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${String(info.title ?? 'API')}</title><style>${new SafeHtml(STYLE)}</style></head>
<body><header><h1>${String(info.title ?? 'API')} <small>${String(info.version ?? '')}</small></h1><p>${String(info.description ?? '')}</p>
<p>Machine-readable: <a href="/api/nest/openapi.json">/api/nest/openapi.json</a> (OpenAPI 3.1)</p><nav>${nav}</nav></header>
<main>${sections}${renderMcp(mcp)}<section id="schemas"><h2>Schemas</h2>${schemas}</section></main></body></html>
`.value;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 1rem;color:#1b1f24}
h2{border-bottom:2px solid #d0d7de;padding-top:1rem}.op{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
.method{display:inline-block;min-width:4.2em;text-align:center;border-radius:4px;color:#fff;font-size:.8em;padding:.1em .4em;background:#57606a}
.get{background:#0969da}.post{background:#1a7f37}.put,.patch{background:#9a6700}.delete{background:#cf222e}
.tag{font-size:.75em;border:1px solid #d0d7de;border-radius:1em;padding:0 .5em;font-weight:normal}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;font-size:.85em}dt{font-weight:600}.desc{white-space:pre-line}nav a{margin-right:.5rem}`;
