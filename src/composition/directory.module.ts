/**
 * Agent cards and the public directory: the one store of cards (owners edit,
 * publish and revoke them through catalog operations, on agent and legacy bot routes), the
 * search index written with them, the public directory routes, and the move of onboarding's
 * registration drafts to their cards. Built before the identity module, whose onboarding
 * writes cards' drafts (`cards`).
 */
import type { RequestHandler } from 'express';
import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import { subjectOfKey } from '../../agents/portfolio/portfolio.records.js';
import type { StatusReader } from '../../agents/portfolio/portfolio.types.js';
import { CardViews } from '../directory/card-views.js';
import { migrateCardDrafts } from '../directory/card-drafts.migration.js';
import { DIRECTORY_COLLECTIONS, type CardSubject } from '../directory/card.records.js';
import { CardsService, type CardSubjects } from '../directory/cards.service.js';
import { DirectoryService } from '../directory/directory.service.js';
import type { PortfolioSource } from '../directory/snapshot.js';
import { migrateTermCounts } from '../directory/term-counts.migration.js';
import { CARD_BINDINGS } from '../http/routes/card.bindings.js';
import { createDirectoryRoutes } from '../http/routes/directory.routes.js';
import { cardOperations } from '../operations/definitions/card.ops.js';
import type { AnyOperation } from '../operations/operation.types.js';
import type { Chain, VenuePort } from '../../kernel/ports/venue.port.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

export interface DirectoryParts {
  /** The per-IP budget of public routes (sign-in's). */
  publicLimit: RequestHandler;
  /** The trading module's portfolio reader and venue (snapshots). */
  status: Pick<StatusReader, 'portfolio'>;
  venue: Pick<VenuePort, 'market'>;
}

/** The top-level state of an actor's state value (`"active"`, or `{active: ...}` for a nested one). */
function topState(state: unknown): string | undefined {
  if (typeof state === 'string') return state;
  if (state && typeof state === 'object') return Object.keys(state)[0];
  return undefined;
}

/** The agent or bot whose life-cycle event this is (`agent.updated` on `agent:<id>`, `bot.updated`/`bot.deleted` on `bot:<id>`). */
function subjectOfEvent(type: string, stream: string): CardSubject | null {
  const subject = subjectOfKey(stream);
  if (subject?.type === 'agent' && type === 'agent.updated') return subject;
  if (subject?.type === 'bot' && (type === 'bot.updated' || type === 'bot.deleted')) return subject;
  return null;
}

export function directoryModule(ctx: ModuleContext, parts: DirectoryParts): FeatureModule & { cards: CardsService } {
  const agents = ctx.runtime.collection(agentDefinition);
  const bots = ctx.runtime.collection(botDefinition);
  const subjects: CardSubjects = {
    get: async (subject: CardSubject) => {
      const view = subject.type === 'agent' ? await agents.get(subject.id) : await bots.get(subject.id);
      if (!view) return null;
      const { publicId, name, createdAt } = view.context;
      // Only an active agent or bot has a public card: paused, archived or deleted ones are "Agent not found".
      return { publicId, name, createdAt, live: topState(view.state) === 'active' };
    },
  };
  const views = new CardViews(ctx.config.publicUrl.replace(/\/+$/, ''));
  const cards = new CardsService({ store: ctx.store, clock: ctx.clock, subjects, views });
  const portfolio: PortfolioSource = {
    portfolio: (subject) => parts.status.portfolio(subject),
    change24hPct: async (chain, token) =>
      parts.venue.market ? ((await parts.venue.market(chain as Chain, token))?.change24hPct ?? null) : null,
  };
  const directory = new DirectoryService({ store: ctx.store, clock: ctx.clock, subjects, views, portfolio });
  let stopping = false;
  let counting: Promise<unknown> = Promise.resolve();
  // A pause, resume, archive or delete moves the card's index entries (`subjectChanged`): told by the
  // actor's own event, on whichever road the change came (REST, MCP, ops, chat). Reads check the state
  // too, so a crash before this runs shows no paused card, only leaves its entries until the next change.
  let unobserve: (() => void) | undefined;
  const following = new Set<Promise<void>>();
  const follow = (subject: CardSubject) => {
    const work = cards
      .subjectChanged(subject)
      .catch((error: unknown) => ctx.logger.error({ err: error, subject }, 'card index did not follow its agent'));
    following.add(work);
    void work.finally(() => following.delete(work));
  };
  return {
    name: 'directory',
    definitions: [],
    collections: DIRECTORY_COLLECTIONS,
    operations: cardOperations(cards) as AnyOperation[],
    bindings: CARD_BINDINGS,
    routers: [createDirectoryRoutes({ directory, publicLimit: parts.publicLimit })],
    dueJobs: [],
    start: async () => {
      unobserve?.(); // started again: one observer, not two
      unobserve = ctx.publisher.observe((event, stream) => {
        const subject = subjectOfEvent(event.type, stream);
        if (subject && !stopping) follow(subject);
      });
      await migrateCardDrafts({ store: ctx.store, cards, logger: ctx.logger, now: () => ctx.clock.now() });
      // In the background: a large directory takes a while, and searches do not depend on the counts.
      counting = migrateTermCounts({
        store: ctx.store,
        cards,
        logger: ctx.logger,
        now: () => ctx.clock.now(),
        stopping: () => stopping,
      }).catch((error: unknown) => ctx.logger.error({ err: error }, 'search index counting failed; the next start tries again'));
    },
    stop: async () => {
      stopping = true;
      unobserve?.();
      await Promise.all([counting, ...following]);
    },
    cards,
  };
}
