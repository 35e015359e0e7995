/**
 * Routes of the service itself: probes, ops inspection and catalog settings (ops bearer),
 * and this documentation. Query and body schemas of the ops routes are module-private
 * there, so they are mirrored here with the same bounds.
 */
import { z } from 'zod';
import { CONSOLE_CONFIG_PATH } from '../console.routes.js';
import { OPS_BASE_PATH, OPS_DEFAULT_PAGE_SIZE, OPS_MAX_PAGE_SIZE } from '../ops.routes.js';
import { catalogSettingsSchema } from '../../operations/catalog-settings.store.js';
import type { RouteDoc } from './route-doc.types.js';

const catalogViewSchema = z.object({
  version: z.number().int(),
  settings: z.object({ disabledFamilies: z.array(z.string()), disabledOperations: z.array(z.string()) }),
  operations: z.array(z.object({ name: z.string(), family: z.string(), minScope: z.string(), principals: z.array(z.string()) })),
});

const limit = z.coerce.number().int().min(1).max(OPS_MAX_PAGE_SIZE).default(OPS_DEFAULT_PAGE_SIZE);
const actorViewSchema = z
  .object({ type: z.string(), id: z.string(), state: z.unknown(), status: z.string(), context: z.unknown(), version: z.number() })
  .loose();
const chartTransitionSchema = z.object({
  trigger: z.enum(['event', 'always', 'after']),
  event: z.string(),
  targets: z.array(z.string()),
  guard: z.string().optional(),
});
interface ChartNodeDoc {
  id: string;
  key: string;
  path: string[];
  kind: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  initial?: string;
  transitions: z.infer<typeof chartTransitionSchema>[];
  states: ChartNodeDoc[];
}
const chartNodeSchema: z.ZodType<ChartNodeDoc> = z.lazy(() =>
  z.object({
    id: z.string(),
    key: z.string(),
    path: z.array(z.string()),
    kind: z.enum(['atomic', 'compound', 'parallel', 'final', 'history']),
    initial: z.string().optional(),
    transitions: z.array(chartTransitionSchema),
    states: z.array(chartNodeSchema),
  }),
);
const machineChartSchema = z.object({ type: z.string(), version: z.number().int(), root: chartNodeSchema });
const ops = ['ops'] as const;
const OPS = 'Ops';
const SERVICE = 'Service';

export const SERVICE_ROUTE_DOCS: RouteDoc[] = [
  { method: 'get', path: '/healthz', tag: SERVICE, summary: 'Liveness', auth: [], response: z.object({ status: z.literal('ok') }) },
  {
    method: 'get',
    path: '/readyz',
    tag: SERVICE,
    summary: 'Readiness',
    description: 'Answers 503 with the same body (`not_ready`) until every adapter is connected.',
    auth: [],
    response: z.object({ status: z.enum(['ready', 'not_ready']), checks: z.record(z.string(), z.string()) }),
  },
  {
    method: 'get',
    path: '/metrics',
    tag: SERVICE,
    summary: 'Prometheus metrics',
    description: 'With the ops token. When `METRICS_PORT` is set, served on that port alone (no token) and not here.',
    auth: ops,
    contentType: 'text/plain',
    response: z.string(),
  },
  {
    method: 'get',
    path: '/api/nest/openapi.json',
    tag: SERVICE,
    summary: 'This OpenAPI 3.1 document',
    auth: [],
    response: z.object({ openapi: z.literal('3.1.0') }).loose(),
  },
  {
    method: 'get',
    path: '/api/nest/docs',
    tag: SERVICE,
    summary: 'Readable API and MCP tool reference',
    description: 'Swagger UI, served by the service itself, rendering this document.',
    auth: [],
    contentType: 'text/html',
    response: z.string(),
  },
  {
    method: 'get',
    path: '/api/nest/docs/assets/:file',
    tag: SERVICE,
    summary: 'Scripts and styles of the docs page',
    params: { file: z.enum(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'docs-init.js', 'docs.css']) },
    auth: [],
    contentType: 'text/javascript',
    response: z.string(),
  },
  {
    method: 'get',
    path: '/api/nest/ops/catalog',
    tag: OPS,
    summary: 'Operations catalog: registry and runtime settings',
    auth: ops,
    response: catalogViewSchema,
  },
  {
    method: 'put',
    path: '/api/nest/ops/catalog',
    tag: OPS,
    summary: 'Switch operation families or single operations off and on',
    description: '`tools/list` follows at once; no restart.',
    auth: ops,
    body: catalogSettingsSchema,
    response: catalogViewSchema,
  },
  {
    method: 'get',
    path: `${OPS_BASE_PATH}/actors`,
    tag: OPS,
    summary: 'Actor types known to the runtime',
    auth: ops,
    response: z.object({ types: z.array(z.string()) }),
  },
  {
    method: 'get',
    path: CONSOLE_CONFIG_PATH,
    tag: SERVICE,
    summary: 'What the operator console may offer here',
    description:
      "The service's profile, and whether the console offers a test wallet (a keypair made in the browser, for evaluation): on the embedded profile only.",
    auth: [],
    response: z.object({ profile: z.enum(['embedded', 'production']), testWallet: z.boolean() }),
  },
  {
    method: 'get',
    path: `${OPS_BASE_PATH}/machines/:type`,
    tag: OPS,
    summary: "A machine type's statechart",
    description:
      'Every state node of the XState definition the runtime hosts (kind, initial child, outgoing transitions with their guards' +
      " names), for drawing it; an actor's `state` names its current node by the nodes' `path`.",
    auth: ops,
    response: machineChartSchema,
  },
  {
    method: 'get',
    path: `${OPS_BASE_PATH}/actors/:type`,
    tag: OPS,
    summary: 'Actors of a type',
    auth: ops,
    query: z.object({ state: z.string().min(1).max(128).optional(), limit, cursor: z.string().min(1).max(1024).optional() }),
    response: z.object({ items: z.array(actorViewSchema), nextCursor: z.string().optional() }),
  },
  { method: 'get', path: `${OPS_BASE_PATH}/actors/:type/:id`, tag: OPS, summary: 'One actor', auth: ops, response: actorViewSchema },
  {
    method: 'get',
    path: `${OPS_BASE_PATH}/actors/:type/:id/journal`,
    tag: OPS,
    summary: 'Journal of one actor',
    auth: ops,
    query: z.object({ afterSeq: z.coerce.number().int().min(0).optional(), limit }),
    response: z.object({
      items: z.array(
        z.object({ seq: z.number().int(), event: z.object({ type: z.string() }).loose(), state: z.unknown(), at: z.number() }),
      ),
      nextAfterSeq: z.number().int().optional(),
    }),
  },
];
