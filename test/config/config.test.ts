import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { resolveSecrets } from '../../src/config/secrets.js';

describe('configuration', () => {
  it('defaults to the embedded profile with nothing set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ profile: 'embedded', port: 3000, host: '127.0.0.1', dataDir: './data' });
    expect(config.mongo).toBeUndefined();
    expect(config.redis).toBeUndefined();
  });

  it('chooses production when MONGODB_URL and REDIS_URL are set', () => {
    const config = loadConfig({ MONGODB_URL: 'mongodb://db:27017', REDIS_URL: 'redis://cache:6379' });
    expect(config.profile).toBe('production');
    expect(config.mongo).toEqual({ url: 'mongodb://db:27017', dbName: 'agent_service' });
    expect(config.redis).toEqual({ url: 'redis://cache:6379', keyPrefix: 'agentsvc' });
  });

  it('takes the live venue with chain RPCs alone (withdrawals need no venue), but not with nothing to reach', () => {
    const config = loadConfig({ TRADING_VENUE: 'live', EVM_CHAIN_RPC_URLS: 'base=http://127.0.0.1:8545' });
    expect(config.trading.venue).toBe('live');
    expect(config.trading.live.evmRpcUrls).toEqual({ base: 'http://127.0.0.1:8545' });
    expect(() => loadConfig({ TRADING_VENUE: 'live' })).toThrow(/live needs JUPITER_API_URL or ZEROX_API_URL, or a chain RPC/);
  });

  it('uses Redis alone with the embedded store when only REDIS_URL is set', () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.profile).toBe('embedded');
    expect(config.redis?.url).toBe('redis://127.0.0.1:6379');
    expect(config.mongo).toBeUndefined();
  });

  it('reads the MCP error mode switch', () => {
    expect(loadConfig({}).mcpGranularErrors).toBe(false);
    expect(loadConfig({ MCP_GRANULAR_ERRORS: 'true' }).mcpGranularErrors).toBe(true);
    expect(() => loadConfig({ MCP_GRANULAR_ERRORS: 'yes' })).toThrow(/MCP_GRANULAR_ERRORS:/);
  });

  it('keeps 25,000 live actors by default: more than 10,000 one-minute strategies and the orders of their ticks', () => {
    expect(loadConfig({}).runtime.maxLiveActors).toBe(25_000);
    expect(loadConfig({ RUNTIME_MAX_LIVE_ACTORS: '500' }).runtime.maxLiveActors).toBe(500);
  });

  it("reads the size of the embedded store's read cache; 0 turns it off", () => {
    expect(loadConfig({}).storeReadCacheEntries).toBe(30_000);
    expect(loadConfig({ STORE_READ_CACHE_ENTRIES: '0' }).storeReadCacheEntries).toBe(0);
    expect(() => loadConfig({ STORE_READ_CACHE_ENTRIES: '-1' })).toThrow(/STORE_READ_CACHE_ENTRIES:/);
  });

  it('reads the address space each embedded LMDB environment maps: 64 GiB unless set, in MiB', () => {
    expect(loadConfig({}).storeMapSize).toBe(2 ** 36);
    expect(loadConfig({ STORE_MAP_SIZE_MB: '16384' }).storeMapSize).toBe(2 ** 34);
    for (const bad of ['63', '0', '1.5', 'big']) expect(() => loadConfig({ STORE_MAP_SIZE_MB: bad }), bad).toThrow(/STORE_MAP_SIZE_MB:/);
  });

  it('reads which proxies to believe about the client address, and refuses true', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8']);
    for (const bad of ['true', '0', '11', '10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY:/);
    }
  });

  it('PROFILE=embedded ignores the URLs', () => {
    const config = loadConfig({ PROFILE: 'embedded', MONGODB_URL: 'mongodb://db', REDIS_URL: 'redis://cache' });
    expect(config.mongo).toBeUndefined();
    expect(config.redis).toBeUndefined();
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ REDIS_URL: 'http://cache' }, 'REDIS_URL'],
    [{ PROFILE: 'production', REDIS_URL: 'redis://cache' }, 'MONGODB_URL'],
    [{ RUNTIME_MAX_LIVE_ACTORS: '0' }, 'RUNTIME_MAX_LIVE_ACTORS'],
  ])('refuses %o naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });

  it('never echoes a URL value, which may hold a password', () => {
    try {
      loadConfig({ REDIS_URL: 'http://user:hunter2@cache' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});

describe('secrets', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'secrets-'));

  it('generates missing secrets into DATA_DIR with mode 0600, once', () => {
    const dataDir = dir();
    const told: string[][] = [];
    const first = resolveSecrets({ profile: 'embedded', dataDir, env: {}, onGenerated: (names) => told.push(names) });
    expect(first.OPS_TOKEN.length).toBeGreaterThanOrEqual(32);
    expect(told).toEqual([['OPS_TOKEN', 'SESSION_SECRET', 'DATA_ENCRYPTION_KEY']]);
    const file = join(dataDir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = resolveSecrets({ profile: 'embedded', dataDir, env: {}, onGenerated: (names) => told.push(names) });
    expect(second.OPS_TOKEN).toBe(first.OPS_TOKEN);
    expect(told).toHaveLength(1);
    expect(JSON.parse(readFileSync(file, 'utf8')).OPS_TOKEN).toBe(first.OPS_TOKEN);
  });

  it('gives processes starting at once on one data directory the same generated secrets', async () => {
    const dataDir = dir();
    const secretsModule = new URL('../../src/config/secrets.ts', import.meta.url).href;
    const code = `const { resolveSecrets } = await import(${JSON.stringify(secretsModule)});
      const s = resolveSecrets({ profile: 'embedded', dataDir: ${JSON.stringify(dataDir)}, env: {} });
      console.log(s.OPS_TOKEN + ' ' + s.DATA_ENCRYPTION_KEY);`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('exit', (status) => (status === 0 ? resolve(out.trim()) : reject(new Error(`exit ${status}`))));
      });
    const seen = await Promise.all(Array.from({ length: 6 }, run));
    expect(new Set(seen).size).toBe(1);
    const stored = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
    expect(`${stored.OPS_TOKEN} ${stored.DATA_ENCRYPTION_KEY}`).toBe(seen[0]);
    expect(readdirSync(dataDir)).toEqual(['secrets.json']); // no lock or temporary file left
  }, 30_000);

  it('prefers the environment, then NAME_FILE', () => {
    const dataDir = dir();
    const value = 'x'.repeat(40);
    const others = { SESSION_SECRET: 's'.repeat(40), DATA_ENCRYPTION_KEY: 'k'.repeat(40) };
    expect(resolveSecrets({ profile: 'production', dataDir, env: { OPS_TOKEN: value, ...others } }).OPS_TOKEN).toBe(value);
    const file = join(dataDir, 'ops-token');
    writeFileSync(file, `${'y'.repeat(40)}\n`);
    expect(resolveSecrets({ profile: 'production', dataDir, env: { OPS_TOKEN_FILE: file, ...others } }).OPS_TOKEN).toBe('y'.repeat(40));
  });

  it('refuses a short secret, an unreadable file, and a missing secret in production', () => {
    const dataDir = dir();
    expect(() => resolveSecrets({ profile: 'embedded', dataDir, env: { OPS_TOKEN: 'short' } })).toThrow(/OPS_TOKEN: must be at least 32/);
    expect(() => resolveSecrets({ profile: 'embedded', dataDir, env: { OPS_TOKEN_FILE: join(dataDir, 'nope') } })).toThrow(
      /OPS_TOKEN_FILE: cannot read/,
    );
    expect(() => resolveSecrets({ profile: 'production', dataDir, env: {} })).toThrow(/OPS_TOKEN: is required by the production profile/);
  });

  it('refuses a corrupt secrets file instead of overwriting it', () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, 'secrets.json'), '{not json');
    expect(() => resolveSecrets({ profile: 'embedded', dataDir, env: {} })).toThrow(/is not a JSON object of strings/);
  });
});
