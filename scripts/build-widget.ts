/**
 * `npm run build:widget`: writes the chat widget's bundle to dist/widget/widget.js and prints
 * its size, for images built without dev dependencies (esbuild), which serve it as it is.
 * Builds whether or not the bundle is fresh (the service's start skips a fresh one).
 */
import { gzipSync } from 'node:zlib';
import { bundleWidget, writeWidgetBundle } from '../src/widget/widget-script.js';

const body = await bundleWidget();
await writeWidgetBundle(body);
console.log(`dist/widget/widget.js: ${body.length} bytes, ${gzipSync(body, { level: 9 }).length} bytes gzipped`);
