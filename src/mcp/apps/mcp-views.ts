/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): server-rendered views a host that
 * supports Apps shows inline beside a tool's result. Each view is a `ui://` resource of MIME
 * type `text/html;profile=mcp-app`, named on the tools that produce it (`_meta.ui.resourceUri`,
 * and the older flat `_meta["ui/resourceUri"]` hosts of the first Apps drafts read), and served
 * by `resources/list` and `resources/read`. The tools answer exactly as before: plain
 * clients keep their text and `structuredContent`.
 *
 * A view is visible to a credential that may see one of its tools (scope, catalog and family
 * switches alike), so `resources/list` never names a view of tools the caller cannot call.
 */
import type { OperationCatalog, Viewer } from '../../operations/operation-catalog.js';
import { PORTFOLIO_VIEW_HTML } from './portfolio.view.js';
import { SAFETY_CHECKS_VIEW_HTML } from './safety-checks.view.js';

/** The extension's identifier in `capabilities.extensions`. */
const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an Apps view (an HTML5 document the host renders in a sandboxed iframe). */
const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat tool `_meta` key of the Apps drafts, kept beside `_meta.ui` for hosts that read only it. */
const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

interface McpView {
  uri: string;
  name: string;
  title: string;
  description: string;
  html: string;
  /** The tools whose results it shows. */
  tools: readonly string[];
}

/** Shown with a border: the views are small panels inside a conversation, not full pages. */
const VIEW_META = { ui: { prefersBorder: true } } as const;

const VIEWS: readonly McpView[] = [
  {
    uri: 'ui://trading/portfolio.html',
    name: 'portfolio',
    title: 'Portfolio',
    description: 'The trading account: total value, positions, and the value over time as a chart.',
    html: PORTFOLIO_VIEW_HTML,
    tools: ['trading_portfolio_summary', 'trading_portfolio_history'],
  },
  {
    uri: 'ui://trading/safety-checks.html',
    name: 'safety_checks',
    title: 'Safety checks',
    description: "A trade's safety checks: each one passed, or the refusal with its message.",
    html: SAFETY_CHECKS_VIEW_HTML,
    tools: ['trading_preflight', 'trading_solana_aggregator_swap', 'trading_evm_swap'],
  },
];

const VIEW_OF_TOOL = new Map(VIEWS.flatMap((view) => view.tools.map((tool) => [tool, view] as const)));

/** The `_meta` a tool descriptor carries when a view shows its results; undefined for the others. */
export function toolViewMeta(tool: string): Record<string, unknown> | undefined {
  const view = VIEW_OF_TOOL.get(tool);
  return view ? { ui: { resourceUri: view.uri }, [LEGACY_RESOURCE_URI_KEY]: view.uri } : undefined;
}

/** What `capabilities.extensions` says of the Apps extension (the MIME types of the views served). */
export const APPS_CAPABILITY = { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } as const;

export interface ResourceDescriptor {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  _meta: typeof VIEW_META;
}

export interface ResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta: typeof VIEW_META;
}

/** The views per viewer: `resources/list` and `resources/read`. */
export class McpViews {
  constructor(private readonly catalog: Pick<OperationCatalog, 'refusal'>) {}

  private visible(view: McpView, viewer: Viewer): boolean {
    return view.tools.some((tool) => this.catalog.refusal(tool, viewer) === undefined);
  }

  list(viewer: Viewer): ResourceDescriptor[] {
    return VIEWS.filter((view) => this.visible(view, viewer)).map((view) => ({
      uri: view.uri,
      name: view.name,
      title: view.title,
      description: view.description,
      mimeType: APP_MIME_TYPE,
      _meta: VIEW_META,
    }));
  }

  /** The view's document, or undefined when there is none by that URI for this viewer. */
  read(uri: string, viewer: Viewer): ResourceContents | undefined {
    const view = VIEWS.find((candidate) => candidate.uri === uri);
    if (!view || !this.visible(view, viewer)) return undefined;
    return { uri: view.uri, mimeType: APP_MIME_TYPE, text: view.html, _meta: VIEW_META };
  }
}
