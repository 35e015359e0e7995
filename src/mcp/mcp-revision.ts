/**
 * Which protocol revision governs one request, decided per request since every request is
 * stateless: the 2026-07-28 revision puts its version, client info and capabilities in each
 * request's `_meta` (the envelope) and repeats version, method and tool name in headers so
 * intermediaries can route without reading bodies; 2025-11-25 and 2025-06-18 requests carry
 * none of that (their revision is the `MCP-Protocol-Version` header, else the latest).
 *
 * The envelope decides (the body is what the server acts on); the headers must agree with
 * it, or a proxy that routed by header and the server that read the body would disagree
 * about what was asked. Refusals, all HTTP 400 before any method runs:
 *
 * | condition                                                  | code   | message                                   |
 * |------------------------------------------------------------|--------|-------------------------------------------|
 * | envelope names a revision we do not speak                  | -32022 | `Unsupported protocol version`            |
 * | `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` missing | -32020 | `Header mismatch: <header> ...`           |
 * |   or different from the body                               |        |                                           |
 * | envelope malformed (capabilities missing, wrong types), or | -32602 | `INVALID_PARAMS: <messages>`              |
 * |   a 2026-07-28 header without an envelope                  |        |                                           |
 * | header names a revision we do not speak, no envelope       | -32600 | `Unsupported protocol version` (as before)|
 */
import { z } from 'zod';
import { isPlainObject } from '../../kernel/shared/is-plain-object.js';
import { validationMessages } from '../../kernel/errors/validation-messages.js';
import { invalidParams, McpWireError, unsupportedProtocolVersion } from './mcp-errors.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './mcp-wire.js';

/** The stateless revision: no `initialize`, everything in each request. */
const STATELESS_PROTOCOL_VERSION = '2026-07-28';
const STATELESS_PROTOCOL_VERSIONS: readonly string[] = [STATELESS_PROTOCOL_VERSION];
/** Every revision we speak, newest first (what `server/discover` and -32022 name). */
const ALL_PROTOCOL_VERSIONS: readonly string[] = [...STATELESS_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/** Reserved `_meta` keys of the 2026-07-28 envelope and results. */
const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** The JSON-RPC code of a header that disagrees with the body (HTTP 400). */
const HEADER_MISMATCH = -32020;
/** The JSON-RPC code of a request revision we do not speak (HTTP 400, names the ones we do). */
const UNSUPPORTED_REVISION = -32022;

export type RequestRevision =
  | { era: 'legacy'; version: string }
  | { era: 'stateless'; version: string; clientInfo?: { name: string; version: string } };

/** The routing headers of one request, as sent (undefined: absent). */
export interface RevisionHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}

const implementation = z.looseObject({ name: z.string().max(200), version: z.string().max(200) });
const envelopeSchema = z.looseObject({
  [META.protocolVersion]: z.string().max(64),
  [META.clientInfo]: implementation.optional(),
  [META.clientCapabilities]: z.looseObject({}),
});

/** The revision of `message` (a parsed body; anything else counts as envelope-less), or the refusal. */
export function requestRevision(message: unknown, headers: RevisionHeaders): RequestRevision | McpWireError {
  const body = isPlainObject(message) ? message : {};
  const params = isPlainObject(body.params) ? body.params : {};
  const meta = isPlainObject(params._meta) ? params._meta : undefined;
  const claimed = meta?.[META.protocolVersion];
  if (claimed === undefined) return legacyRevision(headers.protocolVersion);
  const parsed = envelopeSchema.safeParse(meta, { reportInput: true });
  if (!parsed.success) return invalidParams(validationMessages(parsed.error).map((text) => `_meta.${text}`)).withStatus(400);
  const version = parsed.data[META.protocolVersion];
  if (!STATELESS_PROTOCOL_VERSIONS.includes(version))
    return new McpWireError(400, {
      code: UNSUPPORTED_REVISION,
      message: 'Unsupported protocol version',
      data: { supported: ALL_PROTOCOL_VERSIONS, requested: version },
    });
  if (headers.protocolVersion !== version) return headerMismatch('MCP-Protocol-Version', version);
  const method = typeof body.method === 'string' ? body.method : undefined;
  // Notifications are exempt from the routing headers: nothing is routed back for them.
  if (body.id !== undefined && method !== undefined) {
    if (headers.method !== method) return headerMismatch('Mcp-Method', method);
    const named = namedBy(method, params);
    if (named !== undefined && decodeHeaderValue(headers.name) !== named) return headerMismatch('Mcp-Name', named);
  }
  const clientInfo = parsed.data[META.clientInfo];
  return { era: 'stateless', version, ...(clientInfo ? { clientInfo: { name: clientInfo.name, version: clientInfo.version } } : {}) };
}

/** What `Mcp-Name` must repeat: the tool called or the resource read; undefined for other methods. */
function namedBy(method: string, params: Record<string, unknown>): string | undefined {
  const field = method === 'tools/call' ? params.name : method === 'resources/read' ? params.uri : undefined;
  return typeof field === 'string' ? field : undefined;
}

/** The legacy revisions as frozen constants: nearly every request is one, and readers only read it. */
const LEGACY_REVISIONS: ReadonlyMap<string, RequestRevision> = new Map(
  SUPPORTED_PROTOCOL_VERSIONS.map((version) => [version, Object.freeze({ era: 'legacy', version } as const)]),
);
const LATEST_LEGACY = LEGACY_REVISIONS.get(LATEST_PROTOCOL_VERSION)!;

function legacyRevision(header: string | undefined): RequestRevision | McpWireError {
  if (header === undefined) return LATEST_LEGACY;
  const known = LEGACY_REVISIONS.get(header);
  if (known) return known;
  // A stateless revision named in the header must come with its envelope: never served as legacy.
  if (STATELESS_PROTOCOL_VERSIONS.includes(header))
    return invalidParams([`_meta.${META.protocolVersion} is required for protocol revision ${header}`]).withStatus(400);
  return unsupportedProtocolVersion(ALL_PROTOCOL_VERSIONS);
}

function headerMismatch(header: string, expected: string): McpWireError {
  return new McpWireError(400, {
    code: HEADER_MISMATCH,
    message: `Header mismatch: ${header} must be ${JSON.stringify(expected)}, as in the body`,
  });
}

/**
 * A header value as the client meant it: values that are not plain printable ASCII travel as
 * `=?base64?<base64 of the UTF-8>?=` (HTTP headers carry no Unicode).
 */
function decodeHeaderValue(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return match ? Buffer.from(match[1]!, 'base64').toString('utf8') : value;
}

/**
 * How long a 2026-07-28 client may reuse a `tools/list` answer. The list is per credential
 * (`cacheScope: private`) and follows the scope cap, the catalog switches and the agent's
 * family switches; a client that cached it may show a tool for this long after it went away,
 * and a call to it is refused by the server at once, so the cost of staleness is one refused
 * call, while each list saved is a request off the credential's rate budget.
 */
const TOOLS_LIST_TTL_MS = 30_000;

const CACHEABLE_PER_CREDENTIAL = new Set(['tools/list', 'resources/list']);

/** `server/discover`: the revisions and capabilities, what `initialize` told 2025 clients. */
export function discoverResult(instructions: string, capabilities: Record<string, unknown>) {
  return {
    supportedVersions: ALL_PROTOCOL_VERSIONS,
    capabilities,
    instructions,
    // Every credential sees the same answer, and it changes only with a deployment.
    ttlMs: 300_000,
    cacheScope: 'public',
  };
}

/** A result as the 2026-07-28 revision sends it: its kind and the server's identity stamped on. */
export function statelessResult(method: string, result: unknown, serverInfo: { name: string; version: string }): unknown {
  if (!isPlainObject(result)) return result;
  // The views follow the same switches as the tools they show (mcp-views.ts): cached alike.
  const cacheable = CACHEABLE_PER_CREDENTIAL.has(method) ? { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } : {};
  return { ...result, ...cacheable, resultType: 'complete', _meta: { [META.serverInfo]: serverInfo } };
}
