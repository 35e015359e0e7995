import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FOLDERS = ['kernel', 'src', 'agents', 'machines', 'adapters'];

function typesFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typesFiles(path);
    return entry.name.endsWith('.types.ts') ? [path] : [];
  });
}

/** What a file still holds once its types are erased: nothing but an empty `export {}` for a types-only file. */
function runtimeCode(source: string): string {
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, removeComments: true },
  });
  return outputText.replace(/export\s*\{\s*\};?/g, '').trim();
}

// a `.types.ts` file holds types only; constants, functions and classes live in a role-suffixed sibling.
describe('*.types.ts files', () => {
  const files = FOLDERS.flatMap((folder) => typesFiles(join(ROOT, folder)));

  it('exist (the scan finds them)', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s holds types only', (_name, file) => {
    expect(runtimeCode(readFileSync(file, 'utf8'))).toBe('');
  });

  it('the check sees runtime code', () => {
    expect(runtimeCode("import type { A } from './a.js';\nexport type B = A;\nexport interface C { d: B }\n")).toBe('');
    expect(runtimeCode("export type B = 'x';\nexport const X = 1;\n")).not.toBe('');
    expect(runtimeCode("export { toView, type View } from './view.js';\n")).not.toBe('');
  });
});
