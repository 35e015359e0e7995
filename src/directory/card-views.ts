import type { StoredDocument } from '../../kernel/ports/store.port.js';
import { REGISTRATION_TYPE, type OwnerCard, type PublicCard } from './card.schemas.js';
import type { CardContent, CardRecord, CardService } from './card.records.js';

/** MCP protocol version the service's endpoint speaks first (DECISIONS "MCP endpoint"). */
const MCP_VERSION = '2025-11-25';

const iso = (ms: number) => new Date(ms).toISOString();

/** Drops the owner's own `MCP` entries: the card's MCP endpoint is the service's. */
export function ownServices(services: readonly CardService[]): CardService[] {
  return services.filter((service) => service.name.trim().toLowerCase() !== 'mcp');
}

/** Renders cards: the registration file with the service's MCP endpoint for the agent. */
export class CardViews {
  /** Published cards rendered once per stored version (stores share frozen documents per version). */
  private readonly rendered = new WeakMap<StoredDocument<CardRecord>, PublicCard>();

  constructor(private readonly publicUrl: string) {}

  private body(content: CardContent, record: CardRecord, at: number): PublicCard {
    return {
      type: REGISTRATION_TYPE,
      name: content.name,
      description: content.description,
      ...(content.image ? { image: content.image } : {}),
      services: [{ name: 'MCP', endpoint: `${this.publicUrl}/mcp/${record.publicId}`, version: MCP_VERSION }, ...content.services],
      active: content.active,
      ...(record.registrations?.length ? { registrations: record.registrations } : {}),
      ...(content.supportedTrust ? { supportedTrust: content.supportedTrust } : {}),
      publicId: record.publicId,
      verified: record.verified,
      updatedAt: iso(at),
    };
  }

  /** The card in the directory; null when it is not published. */
  published(doc: StoredDocument<CardRecord>): PublicCard | null {
    const { published } = doc.data;
    if (doc.data.status !== 'published' || !published) return null;
    let card = this.rendered.get(doc);
    if (!card) {
      card = this.body(published.content, doc.data, published.at);
      this.rendered.set(doc, card);
    }
    return card;
  }

  owner(record: CardRecord): OwnerCard {
    const { published } = record;
    return {
      ...this.body(record.draft, record, record.editedAt),
      status: record.status,
      snapshot: record.snapshot,
      ...(published ? { publishedAt: iso(published.at) } : {}),
      unpublishedChanges: published !== undefined && JSON.stringify(published.content) !== JSON.stringify(record.draft),
    };
  }
}
