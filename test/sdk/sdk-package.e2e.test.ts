/**
 * The SDK as another project gets it: `npm pack` of sdk/ (its `prepare` builds dist/), the
 * tarball installed offline into an empty project (the SDK has no dependency to fetch), the
 * README's quick starts copied there, typechecked against the installed package's types,
 * compiled and run with plain node against a started service; then the event stream over the
 * `ws` package's WebSocket given where Node 20 users pass it. The project's own choices
 * (tweetnacl for the keypair, ws, the Node types) are linked from this checkout's node_modules.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

const ROOT = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'sdk-package-'));
const project = join(work, 'consumer');
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', timeout: 240_000 });
const node = (file: string, env: Record<string, string>) =>
  run(process.execPath, [join(project, 'out', file)], {
    cwd: project,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

/** Subscribes over WebSocket (Node 20 has none of its own: the ws package's) and prints the first event. */
const WEBSOCKET_SAMPLE = `import { AgentClient } from 'agent-runtime-sdk';
import { WebSocket } from 'ws';

const agent = new AgentClient({ baseUrl: process.env.BASE_URL ?? '', publicId: process.env.PUBLIC_ID ?? '', apiKey: process.env.AGENT_KEY ?? '' });
const events = agent.subscribeWebSocket({ lastEventId: 0, WebSocket });
for await (const event of events) {
  console.log(\`event \${event.id} \${event.event}\`);
  break;
}
events.close();
`;

it('packs with its build, installs offline into an empty project, and the quick starts run there against the service', async () => {
  const [packed] = JSON.parse((await npm(['pack', '--json', '--pack-destination', work], join(ROOT, 'sdk'))).stdout) as [
    { filename: string; files: { path: string }[] },
  ];
  const files = packed.files.map((file) => file.path);
  expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']));
  expect(files.filter((path) => path.startsWith('test/') || path.startsWith('examples/'))).toEqual([]);

  cpSync(join(ROOT, 'sdk/examples/operator-quickstart.ts'), join(project, 'operator-quickstart.ts'));
  cpSync(join(ROOT, 'sdk/examples/agent-quickstart.ts'), join(project, 'agent-quickstart.ts'));
  writeFileSync(join(project, 'websocket-events.ts'), WEBSOCKET_SAMPLE);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node'], outDir: 'out' },
      include: ['*.ts'],
    }),
  );
  // Offline: only the tarball is installed from outside, and it needs nothing from a registry.
  await npm(['install', '--offline', join(work, packed.filename)], project);
  const linked = ['tweetnacl', 'ws', '@types/ws', '@types/node'].map((name) => join(ROOT, 'node_modules', name));
  await npm(['install', '--offline', ...linked], project);
  // The package is the installed copy, not this checkout's sources.
  expect(realpathSync(join(project, 'node_modules/agent-runtime-sdk'))).toBe(join(realpathSync(project), 'node_modules/agent-runtime-sdk'));
  expect(JSON.parse(readFileSync(join(project, 'node_modules/agent-runtime-sdk/package.json'), 'utf8'))).not.toHaveProperty('dependencies');

  // Typechecked against the package's own types, and compiled to the JavaScript that runs.
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8', timeout: 120_000 });

  const operator = await node('operator-quickstart.js', { BASE_URL: svc.url, PUBLIC_URL });
  expect(operator.stdout).toMatch(/^signed in as \w{32,44}$/m);
  const value = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(operator.stdout)?.[1] ?? '';
  expect(value('AGENT_KEY')).toMatch(/^mcpk_/);
  const agentEnv = { BASE_URL: svc.url, PUBLIC_ID: value('PUBLIC_ID'), AGENT_KEY: value('AGENT_KEY') };

  const agent = await node('agent-quickstart.js', agentEnv);
  expect(agent.stdout).toMatch(/^\d+ tools, among them the swap$/m);
  expect(agent.stdout).toMatch(/^order \S+: filled$/m);
  expect(agent.stdout.trimEnd().split('\n').at(-1)).toMatch(/^event \d+ order\.updated$/);

  const websocket = await node('websocket-events.js', agentEnv);
  expect(websocket.stdout).toMatch(/^event \d+ \S+$/m);
}, 600_000);
