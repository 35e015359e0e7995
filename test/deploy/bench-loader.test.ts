/**
 * The benches load the service's TypeScript as the production build compiles it
 * (test/bench/loader): no `keepNames` wrapper around functions made at runtime, which tsx adds
 * and the bundle `npm start` runs has not; `.js` specifiers find their `.ts` sources and the
 * SDK resolves by its package name, as under tsx.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledImport } from '../bench/loader/compiled-import.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-loader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(join(dir, 'maker.ts'), 'export function make(): () => number {\n  const inner = (): number => 1;\n  return inner;\n}\n');
writeFileSync(
  join(dir, 'main.ts'),
  [
    "import { make } from './maker.js';",
    "import { OperatorClient } from 'agent-runtime-sdk';",
    'const typed: number = make()();',
    "console.log(JSON.stringify({ wrapped: make.toString().includes('__name'), sdk: typeof OperatorClient, typed }));",
  ].join('\n'),
);

const run = (importArgs: string[]) =>
  JSON.parse(execFileSync(process.execPath, [...importArgs, join(dir, 'main.ts')], { encoding: 'utf8' })) as Record<string, unknown>;

describe('the benches’ TypeScript loader', () => {
  it('compiles as the production build does: no name wrapper per closure, .js to .ts, the SDK by name', () => {
    expect(run(compiledImport())).toEqual({ wrapped: false, sdk: 'function', typed: 1 });
  });

  it('differs from tsx where it should (tsx wraps the closure)', () => {
    expect(run(['--import', 'tsx'])).toMatchObject({ wrapped: true, typed: 1 });
  });
});
