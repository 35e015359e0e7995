import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStale } from '../../kernel/shared/build-freshness.js';
import { strongEtag } from '../../kernel/shared/strong-etag.js';

/**
 * The embed script (`GET /api/widget/:botId/script.js`): the TypeScript under `widget/`
 * bundled and minified by esbuild, loaded once per process at start. The bundle is kept in
 * `dist/widget/widget.js` (also what `npm run build:widget` writes at image build): a start
 * whose bundle is newer than every source serves it as it is; one with a source edited since
 * bundles again and writes it back, so a stale bundle never shadows an edit. Where esbuild is
 * not installed (an image built without dev dependencies) the bundle is served as it is. One
 * script for every bot: it reads the bot id and the service's address from its own `src`, so
 * one ETag serves them all.
 */
export interface WidgetScript {
  body: Buffer;
  /** Strong validator: the bundle's SHA-256 (quoted, as the header carries it). */
  etag: string;
}

/** Where the bundle is built from and kept. */
export interface WidgetBuildPaths {
  entry: string;
  /** What the bundle depends on: newer than the output, they make it stale. */
  sources: readonly string[];
  output: string;
}

const ROOT = new URL('../../', import.meta.url);
const WIDGET_PATHS: WidgetBuildPaths = {
  entry: fileURLToPath(new URL('widget/src/main.ts', ROOT)),
  // The widget's code, and this file, which holds the bundler's options.
  sources: [fileURLToPath(new URL('widget/src', ROOT)), fileURLToPath(import.meta.url)],
  output: fileURLToPath(new URL('dist/widget/widget.js', ROOT)),
};

/** Errors of a folder the process may not write to. */
const READ_ONLY = new Set(['EACCES', 'EPERM', 'EROFS']);

let loading: Promise<WidgetScript> | undefined;

/** The script, loaded on first call and kept for the process (several services in one test process share it). */
export function widgetScript(): Promise<WidgetScript> {
  loading ??= loadWidgetBundle()
    .then(({ body }) => ({ body, etag: strongEtag(body) }))
    .catch((error: unknown) => {
      loading = undefined; // a failed build is tried again on the next request
      throw error;
    });
  return loading;
}

/** The bundle: the kept one while it is fresh, else built and written back (`built` says which). */
export async function loadWidgetBundle(paths: WidgetBuildPaths = WIDGET_PATHS): Promise<{ body: Buffer; built: boolean }> {
  if (!buildStale(paths.output, paths.sources)) return { body: await readFile(paths.output), built: false };
  let body: Buffer;
  try {
    body = await bundleWidget(paths.entry);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return { body: await readFile(paths.output), built: false };
  }
  await writeWidgetBundle(body, paths.output).catch((error: unknown) => {
    // A checkout the service may not write to still serves what it bundled; the next start bundles again.
    if (!READ_ONLY.has((error as { code?: string }).code ?? '')) throw error;
  });
  return { body, built: true };
}

/** Bundles the widget's entry into one minified IIFE (esbuild, a dev dependency: absent in a production image, which ships the bundle). */
export async function bundleWidget(entry = WIDGET_PATHS.entry): Promise<Buffer> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
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

/** Writes the bundle whole (a temporary file renamed over it): services starting together never read half of one. */
export async function writeWidgetBundle(body: Buffer, output = WIDGET_PATHS.output): Promise<void> {
  await mkdir(dirname(output), { recursive: true });
  const temporary = `${output}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, body);
  await rename(temporary, output);
}
