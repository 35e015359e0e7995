import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FOLDERS = [
  'kernel',
  'src',
  'agents',
  'machines',
  'adapters',
  'sdk',
  'console',
  'widget',
  'scripts',
  'test',
  'bin',
  'docs',
  'examples',
];
const SKIP = new Set(['node_modules', 'dist', 'generated', 'screenshots']);
const TEXT = /\.(ts|tsx|js|cjs|mjs|md|json|html|css)$/;
const THIS_FILE = relative(ROOT, import.meta.filename);

function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return textFiles(path);
    return TEXT.test(entry.name) ? [path] : [];
  });
}

/**
 * What a reader of a clone cannot follow: section numbers of a specification that is not in the
 * repository, the tracker's issue numbers, and files outside it. Public standards keep their
 * sections (`RFC 9110 §15.5.2`, `JSON-RPC 2.0 §5`): anyone can open them.
 */
const CITATIONS: readonly [string, RegExp][] = [
  ['a section of the interface specification', /\binterface\s+§?\s*\d/i],
  ['a section sign of an outside document', /(?<!RFC \d{3,5} |JSON-RPC 2\.0 )§/],
  ['the contract document', /\bCONTRACT\b/],
  ['an issue number', /\bissues?\s+#?\d/i],
  [
    'a file outside the repository',
    /\.\.\/shared\/(?:spec|architecture|DESIGN|CONVENTIONS|STACK)|\b(?:DESIGN|CONVENTIONS|STACK|CONTRACT|interface)\.md\b/,
  ],
];

function citationsIn(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, index) =>
      CITATIONS.filter(([, pattern]) => pattern.test(line)).map(
        ([what]) => `${relative(ROOT, path)}:${index + 1}: ${what}: ${line.trim()}`,
      ),
    );
}

describe('the repository refers to nothing outside it', () => {
  const files = [
    ...FOLDERS.flatMap((folder) => textFiles(join(ROOT, folder))),
    ...readdirSync(ROOT)
      .filter((name) => /\.(md|cjs|ts|json)$/.test(name) && name !== 'package-lock.json')
      .map((name) => join(ROOT, name)),
  ].filter((path) => relative(ROOT, path) !== THIS_FILE);

  it('scans the code, tests and docs', () => {
    expect(files.length).toBeGreaterThan(500);
    expect(files.map((path) => relative(ROOT, path))).toEqual(expect.arrayContaining(['README.md', 'docs/DECISIONS.md', 'src/main.ts']));
  });

  it('says each reason in place: no spec section, contract, issue number or outside file is cited', () => {
    expect(files.flatMap(citationsIn)).toEqual([]);
  });

  it('catches each kind of citation (the patterns do match)', () => {
    const samples = [
      '// see interface 4.4',
      '/** Interface §7.3 */',
      'the rule of § 5',
      '(CONTRACT "Orders")',
      '(issue 17)',
      'Issue #19 from outside',
      '`../shared/spec/interface.md`',
      'STACK.md says so',
    ];
    for (const sample of samples)
      expect(
        CITATIONS.some(([, pattern]) => pattern.test(sample)),
        sample,
      ).toBe(true);
    for (const sample of [
      'RFC 9110 §15.5.2',
      'JSON-RPC 2.0 §5',
      'export interface Foo {',
      'a contract test',
      "from '../shared/store-helpers.js'",
    ])
      expect(
        CITATIONS.some(([, pattern]) => pattern.test(sample)),
        sample,
      ).toBe(false);
  });
});
