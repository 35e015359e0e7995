import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The embed script (`GET /api/widget/:botId/script.js`): the TypeScript under `widget/`
 * bundled and minified by esbuild once per process, at start. Where esbuild is not installed
 * (an image built without dev dependencies), the bundle `npm run build:widget` wrote at image
 * build (`dist/widget/widget.js`) is served instead; with esbuild at hand the source wins, so a
 * stale bundle never shadows an edit. One script for every bot: it reads the bot id and the service's address from
 * its own `src`, so one ETag serves them all.
 */
export interface WidgetScript {
  body: Buffer;
  /** Strong validator: the bundle's SHA-256 (quoted, as the header carries it). */
  etag: string;
}

const ROOT = new URL('../../', import.meta.url);
const WIDGET_ENTRY = fileURLToPath(new URL('widget/src/main.ts', ROOT));
export const WIDGET_BUNDLE = fileURLToPath(new URL('dist/widget/widget.js', ROOT));

let loading: Promise<WidgetScript> | undefined;

/** The script, built on first call and kept for the process (several services in one test process share it). */
export function widgetScript(): Promise<WidgetScript> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined; // a failed build is tried again on the next request
    throw error;
  });
  return loading;
}

async function load(): Promise<WidgetScript> {
  const body = await bundleWidget().catch(async (error: unknown) => {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return readFile(WIDGET_BUNDLE);
  });
  return {
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/** Bundles `widget/src/main.ts` into one minified IIFE (esbuild, a dev dependency: absent in a production image, which ships the bundle). */
export async function bundleWidget(): Promise<Buffer> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [WIDGET_ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no widget bundle');
  return Buffer.from(output.contents);
}
