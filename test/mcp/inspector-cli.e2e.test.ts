import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Operator } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE = '@modelcontextprotocol/inspector';
/**
 * The installed Inspector, pinned in tools/mcp-inspector (its own package: it asks for Node 22, the
 * project supports 20; `npm test` installs it there first): run as `npx` would run it, with nothing to download.
 */
const require = createRequire(join(ROOT, 'tools', 'mcp-inspector', 'package.json'));
const INSPECTOR_DIR = dirname(require.resolve('@modelcontextprotocol/inspector/package.json'));
const INSPECTOR_BIN = join(
  INSPECTOR_DIR,
  (JSON.parse(readFileSync(join(INSPECTOR_DIR, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector']!,
);

/** The README's Inspector command lines, as a person copies them. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return readme.split('\n').filter((line) => line.startsWith(`npx ${PACKAGE}@`));
}

/** Words of a shell line: double-quoted parts kept whole, `$URL` and `$KEY` put in. */
function words(line: string, vars: Record<string, string>): string[] {
  const expanded = line.replace(/\$(URL|KEY)\b/g, (_match, name: string) => vars[name]!);
  return [...expanded.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

describe('the README’s MCP Inspector CLI lines, run against the service', () => {
  let svc: TestService;
  let home: string;
  let vars: Record<string, string>;
  beforeAll(async () => {
    svc = await startTestService();
    const operator = await Operator.signIn(svc);
    const { agentId, publicId } = await operator.agent('inspected');
    const key = await operator.agentKey(agentId, 'read');
    vars = { URL: `${svc.url}/mcp/${publicId}`, KEY: key.secret };
    // The Inspector keeps state under HOME: a throwaway one.
    home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
  });
  afterAll(async () => {
    await svc?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /** One README line through the installed Inspector; its stdout parsed as JSON. */
  async function run(line: string): Promise<any> {
    const [npx, pkg, ...args] = words(line, vars);
    expect([npx, pkg]).toEqual(['npx', `${PACKAGE}@${installedVersion()}`]);
    const { stdout } = await promisify(execFile)(process.execPath, [INSPECTOR_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1' },
      timeout: 60_000,
    });
    return JSON.parse(stdout);
  }

  it('pins the version the project installs, and lists the tools and calls trading_portfolio_summary with a key', async () => {
    const [list, call, ...rest] = readmeCommands();
    expect(rest).toEqual([]);
    const tools = await run(list!);
    expect(tools.tools.map((tool: { name: string }) => tool.name)).toContain('trading_portfolio_summary');
    const summary = await run(call!);
    expect(summary.isError).toBe(false);
    expect(summary.structuredContent).toMatchObject({ subjectType: 'agent', name: 'inspected', valueUsd: '0.00' });
  }, 120_000);
});

function installedVersion(): string {
  return (JSON.parse(readFileSync(join(INSPECTOR_DIR, 'package.json'), 'utf8')) as { version: string }).version;
}
