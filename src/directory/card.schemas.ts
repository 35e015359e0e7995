import { z } from 'zod';
import { freeTextSchema, nameSchema } from '../../kernel/shared/name.schema.js';

/** The `type` of an ERC-8004 registration file, which every card is. */
export const REGISTRATION_TYPE = 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1';

const serviceSchema = z
  .object({
    name: nameSchema(64).describe(
      'Service kind, e.g. `A2A`, `web`, `ENS` (the service adds its own `MCP` entry; one sent with that name is replaced)',
    ),
    endpoint: z.string().trim().min(1).max(2048).describe('Where the service answers: a URL, an ENS name, a DID'),
    version: z.string().trim().min(1).max(32).optional().describe('Protocol version the endpoint speaks, when it has one'),
  })
  .strict();

/**
 * What an owner writes on a card (`PUT .../card`): the editable fields of the ERC-8004
 * registration file. `type` is always the registration type; `registrations` are those the
 * service verified on chain (SIWA onboarding), never claimed by hand; `services` gets the
 * agent's MCP endpoint from the service.
 */
export const cardContentSchema = z
  .object({
    type: z.literal(REGISTRATION_TYPE).optional().describe(`Always \`${REGISTRATION_TYPE}\`; may be omitted`),
    name: nameSchema(100).describe(
      'Display name of the agent: 1-100 characters, no control, invisible or bidirectional formatting characters',
    ),
    description: freeTextSchema(2000)
      .default('')
      .describe('What the agent does, up to 2000 characters (tabs and line feeds allowed); searched by the directory'),
    image: z
      .url({ protocol: /^(https|ipfs|data)$/ })
      .max(2048)
      .optional()
      .describe('Image URL: https, ipfs or data'),
    services: z.array(serviceSchema).max(20).default([]).describe('Endpoints the agent offers besides its MCP endpoint, at most 20'),
    active: z.boolean().default(true).describe('Whether the agent says it takes work (ERC-8004 `active`); default true'),
    supportedTrust: z
      .array(nameSchema(64))
      .max(10)
      .optional()
      .describe('Trust models the agent supports, e.g. `reputation`, `crypto-economic`; at most 10'),
  })
  .strict();

export type CardContentInput = z.output<typeof cardContentSchema>;

export const publishSchema = z
  .object({
    snapshot: z
      .boolean()
      .default(false)
      .describe(
        'Also publish a live portfolio snapshot (total value, holdings by symbol and share, 24 h change, open orders); default false',
      ),
  })
  .strict();

const service = z.object({ name: z.string(), endpoint: z.string(), version: z.string().optional() });
const registrationEntry = z.object({
  agentId: z.string().describe('ERC-8004 token id'),
  agentRegistry: z.string().describe('`eip155:<chainId>:<address>`'),
});

/** The card as the directory shows it: the registration file plus `publicId`, `verified`, `updatedAt`. */
export const publicCardSchema = z.object({
  type: z.literal(REGISTRATION_TYPE),
  name: z.string(),
  description: z.string(),
  image: z.string().optional(),
  services: z.array(service),
  active: z.boolean(),
  registrations: z.array(registrationEntry).optional(),
  supportedTrust: z.array(z.string()).optional(),
  publicId: z.string(),
  verified: z.boolean().describe('True when the agent proved its ERC-8004 identity on chain (SIWA onboarding)'),
  updatedAt: z.string().describe('ISO 8601: when this version of the card was written (owner view) or published (directory)'),
});
export type PublicCard = z.output<typeof publicCardSchema>;

const CARD_STATUSES = ['draft', 'published', 'revoked'] as const;

/** The owner's view: the card as it will next be published, its status and whether it shows a snapshot. */
export const ownerCardSchema = publicCardSchema.extend({
  status: z.enum(CARD_STATUSES).describe('`draft` until first published; `published`; `revoked` (off the directory until published again)'),
  snapshot: z.boolean().describe('Whether the published card offers its portfolio snapshot'),
  publishedAt: z.string().optional().describe('ISO 8601: when the card now in the directory was published'),
  unpublishedChanges: z.boolean().describe('The card was edited since it was published: publish again to show the edits'),
});
export type OwnerCard = z.output<typeof ownerCardSchema>;

/** A published card's portfolio snapshot: no wallet addresses, no order ids, values rounded. */
export const snapshotSchema = z.object({
  publicId: z.string(),
  valueUsd: z.string(),
  positions: z.array(z.object({ symbol: z.string(), valueUsd: z.string(), share: z.number() })),
  pnlPct24h: z.string().nullable(),
  openOrders: z.number().int(),
  asOf: z.string(),
});
export type Snapshot = z.output<typeof snapshotSchema>;

/** Query of the public page: paging plus `q`. */
export const directoryPageQuerySchema = z
  .object({
    limit: z.number().int().min(1).max(200).default(50),
    cursor: z.string().min(1).max(1024).optional(),
    q: z.string().max(200).optional(),
  })
  .strict();
export const feedQuerySchema = directoryPageQuerySchema.omit({ q: true });
