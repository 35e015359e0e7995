/**
 * The document around one MCP Apps view: a self-contained HTML page (inline style and
 * script, nothing fetched) that a host renders in a sandboxed iframe. The page holds no
 * data when served: the host hands it the tool result through the Apps postMessage bridge
 * (JSON-RPC 2.0: `ui/initialize`, `ui/notifications/initialized`, then
 * `ui/notifications/tool-result`), and the view writes every value with `textContent` or a
 * numeric SVG attribute, so nothing a tool returns (a token symbol, a refusal's message) is
 * ever parsed as markup.
 *
 * The script is plain ES2020 kept as text here: the production image runs the compiled
 * server without sources, so the page must travel inside the server's bundle.
 */

/** The Apps protocol revision the bridge speaks (what the extension's own App client sends). */
const APPS_PROTOCOL_VERSION = '2026-01-26';

/**
 * The bridge to the host, shared by every view. A view's script defines `render(result)`
 * (called with each `CallToolResult` the host sends) and may call `callTool(name, args)`,
 * which resolves to a result only when the host proxies tool calls (`serverTools`).
 */
const BRIDGE = String.raw`
var host = window.parent;
var nextId = 1;
var pending = new Map();
var hostCapabilities = {};
function post(message) { host.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*'); }
function request(method, params) {
  var id = nextId++;
  post({ id: id, method: method, params: params });
  return new Promise(function (resolve, reject) { pending.set(id, { resolve: resolve, reject: reject }); });
}
function callTool(name, args) {
  if (!hostCapabilities.serverTools) return Promise.resolve(undefined);
  return request('tools/call', { name: name, arguments: args }).catch(function () { return undefined; });
}
function applyContext(context) {
  if (context && (context.theme === 'dark' || context.theme === 'light')) document.documentElement.dataset.theme = context.theme;
}
window.addEventListener('message', function (event) {
  if (event.source !== host) return;
  var data = event.data;
  if (!data || typeof data !== 'object' || data.jsonrpc !== '2.0') return;
  if (data.method === undefined) {
    var waiting = pending.get(data.id);
    if (!waiting) return;
    pending.delete(data.id);
    if (data.error) waiting.reject(new Error(String(data.error.message)));
    else waiting.resolve(data.result);
    return;
  }
  if (data.method === 'ui/notifications/tool-result') render(data.params || {});
  else if (data.method === 'ui/notifications/host-context-changed') applyContext(data.params);
  else if (data.id !== undefined && (data.method === 'ping' || data.method === 'ui/resource-teardown')) post({ id: data.id, result: {} });
  else if (data.id !== undefined) post({ id: data.id, error: { code: -32601, message: 'Method not found' } });
});
var lastSize = '';
function reportSize() {
  var width = Math.ceil(document.documentElement.scrollWidth);
  var height = Math.ceil(document.documentElement.scrollHeight);
  if (width + 'x' + height === lastSize) return;
  lastSize = width + 'x' + height;
  post({ method: 'ui/notifications/size-changed', params: { width: width, height: height } });
}
request('ui/initialize', {
  appInfo: { name: VIEW_NAME, version: '1.0.0' },
  appCapabilities: { availableDisplayModes: ['inline'] },
  protocolVersion: '${APPS_PROTOCOL_VERSION}',
}).then(function (result) {
  hostCapabilities = (result && result.hostCapabilities) || {};
  applyContext(result && result.hostContext);
  post({ method: 'ui/notifications/initialized', params: {} });
  if (typeof ResizeObserver === 'function') new ResizeObserver(reportSize).observe(document.documentElement);
  reportSize();
}, function () {});
`;

/** DOM helpers of every view: text goes in as text, SVG numbers as numbers. */
const HELPERS = String.raw`
function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function svg(tag, attributes) {
  var node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (var name in attributes) node.setAttribute(name, String(attributes[name]));
  return node;
}
function words(name) { return String(name).replace(/_/g, ' '); }
function resultText(result) {
  var parts = Array.isArray(result.content) ? result.content : [];
  return parts.filter(function (part) { return part && part.type === 'text'; }).map(function (part) { return String(part.text); }).join('\n');
}
function refusalBox(result) {
  var refusal = result.structuredContent || {};
  var box = el('section', 'refusal');
  box.setAttribute('role', 'alert');
  box.append(el('h2', null, '✗ Refused'));
  box.append(el('p', 'message', refusal.message !== undefined ? refusal.message : resultText(result)));
  if (refusal.code !== undefined) box.append(el('p', 'code', refusal.code));
  if (refusal.hint !== undefined) box.append(el('p', 'hint', refusal.hint));
  return box;
}
`;

const BASE_STYLE = `
:root { color-scheme: light dark; --bg: var(--color-background-primary, #fff); --fg: var(--color-text-primary, #171717);
  --muted: var(--color-text-secondary, #5f6368); --ok: var(--color-text-success, #137333); --bad: var(--color-text-danger, #b3261e);
  --line: var(--color-border-primary, #d0d4d9); }
:root[data-theme='dark'] { --bg: var(--color-background-primary, #171717); --fg: var(--color-text-primary, #fafafa);
  --muted: var(--color-text-secondary, #a8abb0); --ok: var(--color-text-success, #81c995); --bad: var(--color-text-danger, #f28b82);
  --line: var(--color-border-primary, #3c4043); }
html, body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.4 var(--font-sans, system-ui, sans-serif); }
main { padding: 12px 16px; }
h1 { font-size: 16px; margin: 0 0 4px; } h2 { font-size: 14px; margin: 8px 0 4px; }
.muted, .code, .hint { color: var(--muted); font-size: 12px; margin: 2px 0; }
.refusal h2, .refused { color: var(--bad); } .passed { color: var(--ok); } .not-run { color: var(--muted); }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 2px 8px 2px 0; border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
ul { list-style: none; padding: 0; margin: 4px 0; } li { padding: 2px 0; }
`;

/** A whole view document: its name (for `ui/initialize`), title, extra style and script defining `render(result)`. */
export function viewPage(view: { name: string; title: string; style: string; script: string }): string {
  // Defence in depth beside the host's own sandbox: nothing loads from anywhere, inline only.
  const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${view.title}</title>`,
    `<style>${BASE_STYLE}${view.style}</style>`,
    '</head>',
    '<body>',
    '<main id="view"><p class="muted">Waiting for the tool result…</p></main>',
    `<script>(function () {\n'use strict';\nvar VIEW_NAME = ${JSON.stringify(view.name)};\n${HELPERS}\n${view.script}\n${BRIDGE}\n})();</script>`,
    '</body>',
    '</html>',
  ].join('\n');
}
