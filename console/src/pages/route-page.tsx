/** The page each route of the table (routes.ts) shows inside the shell. */
import type { Route } from '../routes.js';
import { ActorPage } from './actor.page.js';
import { AgentShell } from './agent-shell.js';
import { AgentsPage } from './agents.page.js';
import { BotShell } from './bot-shell.js';
import { BotsPage } from './bots.page.js';
import { OAuthConsentPage } from './oauth-consent.page.js';
import { OpsPage } from './ops.page.js';

export function RoutePage({ route }: { route: Route }) {
  switch (route.page) {
    case 'ops':
      return <OpsPage />;
    case 'actor':
      return <ActorPage type={route.type} id={route.id} />;
    case 'agent':
      return <AgentShell agentId={route.agentId} section={route.section} />;
    case 'bots':
      return <BotsPage />;
    case 'bot':
      return <BotShell botId={route.botId} section={route.section} />;
    case 'consent':
      return <OAuthConsentPage authorizationId={route.authorizationId} />;
    case 'home':
    case 'agents':
      return <AgentsPage />;
  }
}
