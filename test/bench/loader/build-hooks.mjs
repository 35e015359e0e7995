/**
 * Module hooks that compile TypeScript as the production build does (esbuild, no `keepNames`),
 * for benchmarks: tsx compiles with `keepNames`, which wraps every function, closures made per
 * request included, in a `__name(fn, "name")` call that defines a property at runtime; the
 * bundle `npm start` runs (scripts/build-server.ts) has none of that, and a bench should measure
 * what runs in production. Resolution as tsc's NodeNext with the project's `paths`: a `.js`
 * specifier finds its `.ts` (or `.tsx`) source; `agent-runtime-sdk` is the SDK's sources.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const ROOT = new URL('../../../', import.meta.url);
const SDK_ENTRY = new URL('sdk/src/index.ts', ROOT).href;
const TSCONFIG = readFileSync(new URL('tsconfig.json', ROOT), 'utf8');

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'agent-runtime-sdk') return { url: SDK_ENTRY, shortCircuit: true };
  if ((specifier.startsWith('.') || specifier.startsWith('file:')) && specifier.endsWith('.js') && context.parentURL) {
    const target = new URL(specifier, context.parentURL);
    if (!existsSync(target)) {
      for (const extension of ['.ts', '.tsx']) {
        const source = new URL(target.href.replace(/\.js$/, extension));
        if (existsSync(source)) return { url: source.href, shortCircuit: true };
      }
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !/\.tsx?$/.test(url)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(readFileSync(path, 'utf8'), {
    loader: url.endsWith('.tsx') ? 'tsx' : 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: path,
    sourcemap: 'inline',
    tsconfigRaw: TSCONFIG,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
