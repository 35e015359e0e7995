/**
 * The console's addresses, in one table: each page's path pattern and the route it reads as.
 * Components ask for a route (`useRoute`) and link to one (`Link`, `pathOf`); none parses the
 * location itself. The service answers every one of these paths with index.html.
 */

/** The sections of one agent's pages, each its own address (so back and reload work). */
export type AgentSection = 'overview' | 'trading' | 'portfolio' | 'dca';

/** The sections of one legacy bot's pages. */
export type BotSection = 'keys' | 'messaging' | 'chat' | 'fees' | 'card' | 'widget';

export type Route =
  | { page: 'agents' }
  | { page: 'agent'; agentId: string; section: AgentSection }
  | { page: 'bots' }
  | { page: 'bot'; botId: string; section: BotSection }
  | { page: 'ops' }
  /** One actor in the ops inspector: its statechart, context and journal (ops token). */
  | { page: 'actor'; type: string; id: string }
  /**
   * An MCP client asks for access to an agent (the service's OAuth authorize route sends the
   * browser here); `authorizationId` is empty when the address lost its query.
   */
  | { page: 'consent'; authorizationId: string }
  /** `/` and the old key page's address, which lead to the agents page. */
  | { page: 'home' };

interface RouteEntry {
  pattern: RegExp;
  /** The route of a matching path; its groups are still URI-encoded. `query` is the address's query string. */
  read(groups: string[], query: URLSearchParams): Route;
}

const AGENT_SECTIONS: Record<string, AgentSection> = { trading: 'trading', portfolio: 'portfolio', dca: 'dca' };
const BOT_SECTIONS: Record<string, BotSection> = { messaging: 'messaging', chat: 'chat', fees: 'fees', card: 'card', widget: 'widget' };

const ROUTES: RouteEntry[] = [
  { pattern: /^\/(?:hub\/api-keys)?$/, read: () => ({ page: 'home' }) },
  { pattern: /^\/agents\/?$/, read: () => ({ page: 'agents' }) },
  {
    pattern: /^\/agents\/([^/]+)(?:\/(trading|portfolio|dca))?$/,
    read: ([agentId = '', section]) => ({
      page: 'agent',
      agentId: decodeURIComponent(agentId),
      section: (section && AGENT_SECTIONS[section]) || 'overview',
    }),
  },
  { pattern: /^\/bots\/?$/, read: () => ({ page: 'bots' }) },
  {
    pattern: /^\/bots\/([^/]+)(?:\/(messaging|chat|fees|card|widget))?$/,
    read: ([botId = '', section]) => ({
      page: 'bot',
      botId: decodeURIComponent(botId),
      section: (section && BOT_SECTIONS[section]) || 'keys',
    }),
  },
  { pattern: /^\/ops$/, read: () => ({ page: 'ops' }) },
  {
    pattern: /^\/ops\/actors\/([^/]+)\/([^/]+)$/,
    read: ([type = '', id = '']) => ({ page: 'actor', type: decodeURIComponent(type), id: decodeURIComponent(id) }),
  },
  // The OAuth authorize route names the request in the query, as OAuth addresses do.
  {
    pattern: /^\/oauth\/consent\/?$/,
    read: (_groups, query) => ({ page: 'consent', authorizationId: query.get('authorization_id') ?? '' }),
  },
];

/** The route of a path (with its query string, if any); a path no entry knows reads as the agents page (the console's home). */
export function parseRoute(address: string): Route {
  const at = address.indexOf('?');
  const path = at < 0 ? address : address.slice(0, at);
  const query = new URLSearchParams(at < 0 ? '' : address.slice(at + 1));
  for (const entry of ROUTES) {
    const match = entry.pattern.exec(path);
    if (match) return entry.read(match.slice(1), query);
  }
  return { page: 'agents' };
}

/** The path of a route: the inverse of `parseRoute`. */
export function pathOf(route: Route): string {
  switch (route.page) {
    case 'home':
    case 'agents':
      return '/agents';
    case 'agent':
      return `/agents/${encodeURIComponent(route.agentId)}${route.section === 'overview' ? '' : `/${route.section}`}`;
    case 'bots':
      return '/bots';
    case 'bot':
      return `/bots/${encodeURIComponent(route.botId)}${route.section === 'keys' ? '' : `/${route.section}`}`;
    case 'ops':
      return '/ops';
    case 'actor':
      return `/ops/actors/${encodeURIComponent(route.type)}/${encodeURIComponent(route.id)}`;
    case 'consent':
      return `/oauth/consent?${new URLSearchParams({ authorization_id: route.authorizationId })}`;
  }
}
