/**
 * The public directory routes of `directory.routes.ts` (the public onboarding and directory routes; public directory and agent cards), with the schemas they validate with and answer in.
 */
import { z } from 'zod';
import { directoryPageQuerySchema, feedQuerySchema, publicCardSchema, snapshotSchema } from '../../directory/card.schemas.js';
import { DIRECTORY_PREFIX } from '../routes/directory.routes.js';
import type { RouteDoc } from './route-doc.types.js';

const TAG = 'ERC-8004';
const CACHING = 'Cached publicly for 30 s; `ETag` on every answer, `If-None-Match` → 304.';
const pageOfCards = z.object({ items: z.array(publicCardSchema), nextCursor: z.string().optional() });
const pageQuery = directoryPageQuerySchema.extend({
  limit: directoryPageQuerySchema.shape.limit.describe('Most cards to answer with, 1-200; default 50'),
  cursor: directoryPageQuerySchema.shape.cursor.describe('The `nextCursor` of the previous page'),
  q: directoryPageQuerySchema.shape.q.describe(
    'Words, all of which a card must hold: prefixes of words of its name, or whole words of its description',
  ),
});
const feedQuery = feedQuerySchema.extend({ limit: pageQuery.shape.limit, cursor: pageQuery.shape.cursor });

export const DIRECTORY_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: `${DIRECTORY_PREFIX}/agents/page`,
    tag: TAG,
    summary: 'Published agent cards, newest first; `q` searches names and descriptions',
    description: `A card whose agent is paused or archived is left out. ${CACHING}`,
    auth: [],
    query: pageQuery,
    response: pageOfCards,
  },
  {
    method: 'get',
    path: `${DIRECTORY_PREFIX}/agents/:publicId`,
    tag: TAG,
    summary: 'One published agent card',
    description: `404 \`Agent not found\` when unpublished, revoked, or the agent is paused or archived. ${CACHING}`,
    auth: [],
    response: publicCardSchema,
    errors: [404],
  },
  {
    method: 'get',
    path: `${DIRECTORY_PREFIX}/agents/:publicId/snapshot`,
    tag: TAG,
    summary: "The agent's live portfolio snapshot, when its owner published the card with `snapshot: true`",
    description: `USD figures to three significant digits; no wallet address, order id or token amount. ${CACHING}`,
    auth: [],
    response: snapshotSchema,
    errors: [404],
  },
  {
    method: 'get',
    path: `${DIRECTORY_PREFIX}/discovery/feed`,
    tag: TAG,
    summary: 'Verified (SIWA) published agents, newest first',
    description: CACHING,
    auth: [],
    query: feedQuery,
    response: pageOfCards,
  },
];
