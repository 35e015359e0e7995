/**
 * `npm install` on the Node versions the project declares prints no engine warning: every package in
 * the lock file accepts the oldest Node of `engines` and the one running the suite. A package that
 * asks for more (as every MCP Inspector release does: Node 22) stays out of the project's install.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

describe('engines', () => {
  const declared: string = read('package.json').engines.node;
  const oldest = semver.minVersion(declared)!.version;
  const packages = Object.entries(read('package-lock.json').packages as Record<string, { version?: string; engines?: { node?: string } }>);

  it('every locked package accepts the oldest declared Node and the running one', () => {
    const refusing = packages
      .filter(([path]) => path !== '')
      .filter(([, entry]) => {
        const wanted = entry.engines?.node;
        return wanted !== undefined && !(semver.satisfies(oldest, wanted) && semver.satisfies(process.version, wanted));
      })
      .map(([path, entry]) => `${path}@${entry.version} wants node ${entry.engines?.node}`);
    expect(refusing).toEqual([]);
  });

  it('the Inspector is kept out of the project install', () => {
    expect(packages.map(([path]) => path)).not.toContain('node_modules/@modelcontextprotocol/inspector');
  });
});
