/**
 * Agent cards (the public onboarding and directory routes and the legacy routes; public directory and agent cards): one card per
 * agent or legacy bot, its owner's draft and, while published, the copy the directory shows.
 * Publishing and revoking write the card, its search index entries and the term counts in one
 * commit, so the index never lists a card that is not published, nor misses one that is (but
 * while its agent or bot is not active: `subjectChanged`).
 */
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CommitWrite, StorePort } from '../../kernel/ports/store.port.js';
import { retryOnConflict } from '../../kernel/shared/record-update.js';
import { indexedAs, indexWrites } from './card-index.js';
import { cardTerms } from './card-search.js';
import type { CardContentInput, OwnerCard } from './card.schemas.js';
import { type CardViews, ownServices } from './card-views.js';
import { CARDS, cardIdOf, cardIndexes, type CardContent, type CardRecord, type CardSubject } from './card.records.js';

/** What a card needs of its agent or bot; the composition reads the actors. */
export interface CardSubjects {
  /** Null when there is no such agent or bot. `live`: an active agent or bot (a paused, archived or deleted one has no public card). */
  get(subject: CardSubject): Promise<{ publicId: string; name: string; createdAt: number; live: boolean } | null>;
}

/** What onboarding knows about an agent's card: its verified identity, and the registration file it sent. */
export interface OnboardedCard {
  verified: boolean;
  registrations?: Array<{ agentId: string; agentRegistry: string }>;
  registration?: Pick<CardContent, 'name' | 'description' | 'image' | 'services' | 'active' | 'supportedTrust'>;
}

export interface CardsDeps {
  store: StorePort;
  clock: ClockPort;
  subjects: CardSubjects;
  views: CardViews;
}

/** The one shape of stored content (key order fixed, so two equal cards compare equal as JSON). */
function contentOf(input: Omit<CardContentInput, 'type'> | (OnboardedCard['registration'] & {})): CardContent {
  return {
    name: input.name,
    description: input.description,
    ...(input.image ? { image: input.image } : {}),
    services: ownServices(input.services).map((s) => ({
      name: s.name,
      endpoint: s.endpoint,
      ...(s.version ? { version: s.version } : {}),
    })),
    active: input.active,
    ...(input.supportedTrust ? { supportedTrust: [...input.supportedTrust] } : {}),
  };
}

export class CardsService {
  /** The tail of this process's reindexing changes (`serially`). */
  private reindexing: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: CardsDeps) {}

  /** `GET .../card`: the stored card, or the one an agent has before anyone wrote it (its name, nothing else). */
  async get(subject: CardSubject): Promise<OwnerCard> {
    const doc = await this.deps.store.get<CardRecord>(CARDS, cardIdOf(subject));
    return this.deps.views.owner(doc?.data ?? (await this.blank(subject)));
  }

  /** `PUT .../card`: replaces the draft; a published card shows the edit once published again. */
  async edit(subject: CardSubject, input: CardContentInput): Promise<OwnerCard> {
    const content = contentOf(input);
    const now = this.deps.clock.now();
    return this.deps.views.owner((await this.change(subject, (card) => ({ ...card, draft: content, editedAt: now, updatedAt: now })))!);
  }

  /** `POST .../card/publish`: the draft goes to the directory (again: newest first), with the snapshot or without. */
  async publish(subject: CardSubject, options: { snapshot: boolean }): Promise<OwnerCard> {
    const now = this.deps.clock.now();
    const record = await this.change(
      subject,
      (card) => ({
        ...card,
        status: 'published',
        snapshot: options.snapshot,
        published: { content: card.draft, at: now, gen: card.publishes + 1, terms: cardTerms(card.draft) },
        publishes: card.publishes + 1,
        updatedAt: now,
      }),
      { reindex: true },
    );
    return this.deps.views.owner(record!);
  }

  /** `POST .../card/revoke`: off the directory at once (404 there); revoking a card that is not published changes nothing. */
  async revoke(subject: CardSubject): Promise<OwnerCard> {
    const now = this.deps.clock.now();
    const record = await this.change(
      subject,
      (card) => {
        if (card.status !== 'published') return null;
        const { published: _gone, ...rest } = card;
        return { ...rest, status: 'revoked', updatedAt: now };
      },
      { reindex: true },
    );
    return this.deps.views.owner(record!);
  }

  /**
   * Onboarding (identity module): the agent's verified identity, and the registration file it
   * sent as the card's draft. The published card changes only when its owner publishes.
   */
  async onboarded(agentActorId: string, card: OnboardedCard): Promise<void> {
    const now = this.deps.clock.now();
    await this.change({ type: 'agent', id: agentActorId }, (current) => ({
      ...current,
      verified: card.verified,
      ...(card.registrations ? { registrations: card.registrations } : {}),
      ...(card.registration ? { draft: contentOf(card.registration), editedAt: now } : {}),
      updatedAt: now,
    }));
  }

  /**
   * The agent's ERC-8004 identity is no longer its own (the identity module's ownership
   * checks): not verified, no registrations, out of the feed at once (the published copy
   * reads both from the record). Nothing to do for an agent without a card.
   */
  async unverified(agentActorId: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.change(
      { type: 'agent', id: agentActorId },
      (current) => {
        if (!current.verified && !current.registrations) return null;
        const { registrations: _gone, ...rest } = current;
        return { ...rest, verified: false, updatedAt: now };
      },
      { existingOnly: true },
    );
  }

  /**
   * Its agent or bot was paused, resumed, archived or deleted: the card's index entries follow
   * (withdrawn while it is not active, back while its card is published), counts with them,
   * in one commit. Idempotent. The card is written even when its entries stay, so that a
   * publish that read the agent's state before this change loses its compare-and-set and
   * reads it again. Nothing to do for an agent without a card.
   */
  async subjectChanged(subject: CardSubject): Promise<void> {
    await this.change(subject, (card) => ({ ...card }), { reindex: true, existingOnly: true });
  }

  /**
   * The card as stored, else blank, changed by `apply` (null: no change) and written with its
   * index writes (card-index.ts); retried on a lost race. With `reindex`, the published copy
   * is indexed as its agent's state says, read after the card (see `subjectChanged`); those
   * changes move term counts, so this process makes them one at a time (another process's
   * are held off by the compare-and-set of each count).
   */
  private change(
    subject: CardSubject,
    apply: (card: CardRecord) => CardRecord | null,
    options: { reindex?: boolean; existingOnly?: boolean } = {},
  ): Promise<CardRecord | null> {
    const id = cardIdOf(subject);
    const attempt = async () => {
      const doc = await this.deps.store.get<CardRecord>(CARDS, id);
      if (!doc && options.existingOnly) return null;
      const current = doc?.data ?? (await this.blank(subject));
      let next = apply(current);
      if (!next) return current;
      if (options.reindex) {
        const live = (await this.deps.subjects.get(subject))?.live ?? false;
        const published = indexedAs(next.published, live);
        next = published ? { ...next, published } : next;
      }
      const writes: CommitWrite[] = [
        { op: 'put', collection: CARDS, id, input: { data: next, expectedVersion: doc?.version ?? 0, indexes: cardIndexes(next) } },
        ...(await indexWrites(this.deps.store, id, doc ? current.published : undefined, next.published)),
      ];
      await this.deps.store.commit(writes);
      return next;
    };
    return retryOnConflict(
      () => `${CARDS}/${id}`,
      () => (options.reindex ? this.serially(attempt) : attempt()),
    );
  }

  /** Runs `work` after the reindexing changes queued before it (see `change`). */
  private serially<R>(work: () => Promise<R>): Promise<R> {
    const run = this.reindexing.then(work, work);
    this.reindexing = run.catch(() => undefined);
    return run;
  }

  /** A card nobody wrote yet: the agent's (or bot's) name, a draft. */
  private async blank(subject: CardSubject): Promise<CardRecord> {
    const found = await this.deps.subjects.get(subject);
    if (!found) throw AppError.notFound(subject.type === 'agent' ? 'Agent not found' : 'Bot not found');
    return {
      subject: { ...subject },
      publicId: found.publicId,
      draft: { name: found.name, description: '', services: [], active: true },
      verified: false,
      status: 'draft',
      snapshot: false,
      publishes: 0,
      editedAt: found.createdAt,
      updatedAt: this.deps.clock.now(),
    };
  }
}
