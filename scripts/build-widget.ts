/**
 * `npm run build:widget`: writes the chat widget's bundle to dist/widget/widget.js and prints
 * its size, for images built without dev dependencies (esbuild), which serve it as it is.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bundleWidget, WIDGET_BUNDLE } from '../src/widget/widget-script.js';

const body = await bundleWidget();
mkdirSync(dirname(WIDGET_BUNDLE), { recursive: true });
writeFileSync(WIDGET_BUNDLE, body);
console.log(`${WIDGET_BUNDLE}: ${body.length} bytes, ${gzipSync(body, { level: 9 }).length} bytes gzipped`);
