/**
 * The readable reference at `GET /api/nest/docs`: Swagger UI (the `swagger-ui-dist` package,
 * served by this service from its own files, nothing from elsewhere) rendering
 * `/api/nest/openapi.json`, routes and MCP tools alike. The page is a fixed shell: the
 * document's texts reach the browser only as JSON, which Swagger UI renders (Markdown through
 * its sanitizer), never as markup written here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { strongEtag } from '../../../kernel/shared/strong-etag.js';

export const DOCS_PATH = '/api/nest/docs';
export const DOCS_ASSET_PATH = `${DOCS_PATH}/assets`;
const OPENAPI_PATH = '/api/nest/openapi.json';

/**
 * The page's own scripts and styles only; images as `data:` (Swagger UI's icons); requests to
 * this origin only ("try it out", the document). No inline script or style is needed.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Starts Swagger UI on the document. The validator badge is off (it would send the document's
 * address to validator.swagger.io); deep links let a person share an operation's address.
 */
const INIT_SCRIPT = `window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#reference',
    validatorUrl: null,
    deepLinking: true,
    docExpansion: 'none',
    defaultModelsExpandDepth: 0,
    filter: true,
    displayRequestDuration: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

/** The renderer fills `#reference`; without scripts the page points at the document. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent runtime service: API and MCP tools</title>
<link rel="stylesheet" href="${DOCS_ASSET_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_ASSET_PATH}/docs.css">
<link rel="icon" type="image/png" href="${DOCS_ASSET_PATH}/favicon-32x32.png">
</head>
<body>
<main id="reference"><noscript>This reference needs JavaScript; the same content is in <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI 3.1).</noscript></main>
<script src="${DOCS_ASSET_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSET_PATH}/docs-init.js"></script>
</body>
</html>
`;

/** What Swagger UI's own sample page adds to its stylesheet, and the no-script note. */
const DOCS_STYLE = `html{box-sizing:border-box;overflow-y:scroll}*,*:before,*:after{box-sizing:inherit}body{margin:0;background:#fafafa}
noscript{display:block;font-family:system-ui,sans-serif;padding:1rem 20px}
`;

export interface DocsAsset {
  body: Buffer;
  type: string;
  etag: string;
}

const PACKAGE_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page and its assets, read once from the package when first asked for. */
export class DocsPage {
  readonly html = PAGE;
  private readonly assets = new Map<string, DocsAsset>();

  /** An asset by file name, or undefined for any other name. */
  asset(name: string): DocsAsset | undefined {
    const cached = this.assets.get(name);
    if (cached) return cached;
    const loaded = load(name);
    if (loaded) this.assets.set(name, loaded);
    return loaded;
  }
}

function load(name: string): DocsAsset | undefined {
  const asset = (body: Buffer, type: string): DocsAsset => ({ body, type, etag: strongEtag(body) });
  if (name === 'docs-init.js') return asset(Buffer.from(INIT_SCRIPT), 'text/javascript; charset=utf-8');
  if (name === 'docs.css') return asset(Buffer.from(DOCS_STYLE), 'text/css; charset=utf-8');
  const type = PACKAGE_FILES[name];
  if (!Object.hasOwn(PACKAGE_FILES, name) || type === undefined) return undefined;
  return asset(readFileSync(join(swaggerUiDirectory(), name)), type);
}

const require = createRequire(import.meta.url);

/** Where npm put `swagger-ui-dist` (resolved like an import, so hoisting does not matter). */
function swaggerUiDirectory(): string {
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}
