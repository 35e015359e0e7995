import { lookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientMetadataHttpAdapter } from '../../adapters/oauth/client-metadata-http.adapter.js';
import { internalAddressClass } from '../../adapters/oauth/internal-address.js';
import { ClientMetadataAddressRefused } from '../../kernel/ports/client-metadata.port.js';

/** Names that resolve only here: the answers a hostile DNS server could give. */
const FAKE_DNS: Record<string, { address: string; family: number }[]> = {
  'mixed.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ],
  'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'loopback.test': [{ address: '127.0.0.1', family: 4 }],
};

/** The system resolver, except for the names above. */
const resolve = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
  const fake = FAKE_DNS[hostname];
  if (!fake) return lookup(hostname, options as never, callback as never);
  if (options.all) return process.nextTick(callback, null, fake);
  process.nextTick(callback, null, fake[0]?.address, fake[0]?.family);
}) as typeof lookup;

const DOCUMENT = { client_id: 'x', client_name: 'Doc', redirect_uris: ['https://app.example/cb'] };

describe('internalAddressClass', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.0.10', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['224.0.0.251', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd12:3456::1', 'private'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
  ])('%s is %s', (address, kind) => {
    expect(internalAddressClass(address)).toBe(kind);
  });

  it.each(['8.8.8.8', '100.128.0.1', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    '%s is public',
    (address) => {
      expect(internalAddressClass(address)).toBeUndefined();
    },
  );
});

describe('ClientMetadataHttpAdapter', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  let answer: (res: import('node:http').ServerResponse) => void = (res) => res.end(JSON.stringify(DOCUMENT));

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests += 1;
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const adapter = (allowLoopback: boolean) => new ClientMetadataHttpAdapter({ timeoutMs: 2_000, maxBytes: 1_024, allowLoopback, resolve });

  /** The refusal `fetchDocument` threw, and that nothing reached the local server meanwhile. */
  async function refusal(allowLoopback: boolean, url: string): Promise<ClientMetadataAddressRefused> {
    const before = requests;
    const error = await adapter(allowLoopback)
      .fetchDocument(url)
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(requests).toBe(before);
    expect(error).toBeInstanceOf(ClientMetadataAddressRefused);
    return error as ClientMetadataAddressRefused;
  }

  it('refuses an address literal inside the network before connecting, loopback only when not allowed', async () => {
    expect((await refusal(false, `http://127.0.0.1:${port}/client.json`)).addressClass).toBe('loopback');
    expect((await refusal(false, `http://[::ffff:7f00:1]:${port}/client.json`)).addressClass).toBe('loopback');
    // Allowing loopback allows nothing else: these would otherwise hang on an unreachable network.
    expect((await refusal(true, 'https://10.0.0.1/client.json')).addressClass).toBe('private');
    expect((await refusal(true, 'https://169.254.169.254/latest/meta-data')).addressClass).toBe('link-local');
    expect((await refusal(true, 'https://[fd00::1]/client.json')).addressClass).toBe('private');
  });

  it('checks the addresses a host name resolves to inside the connection’s own lookup', async () => {
    const named = await refusal(false, `http://localhost:${port}/client.json`);
    expect(named).toMatchObject({ host: 'localhost', addressClass: 'loopback' });
    expect((await refusal(false, `http://loopback.test:${port}/client.json`)).address).toBe('127.0.0.1');
    expect((await refusal(false, `http://mapped.test:${port}/client.json`)).addressClass).toBe('loopback');
    // One internal address among public ones refuses the host: the connection may try any of them.
    expect(await refusal(true, 'https://mixed.test/client.json')).toMatchObject({ address: '10.0.0.5', addressClass: 'private' });
  });

  it('connects to the address its lookup checked when loopback is allowed', async () => {
    // `loopback.test` resolves nowhere but in the checked lookup: the document proves the connection used it.
    await expect(adapter(true).fetchDocument(`http://loopback.test:${port}/client.json`)).resolves.toEqual(DOCUMENT);
    await expect(adapter(true).fetchDocument(`http://127.0.0.1:${port}/client.json`)).resolves.toEqual(DOCUMENT);
  });

  it('keeps its deadline, size cap and no-redirect rule', async () => {
    answer = (res) => res.writeHead(302, { location: 'https://elsewhere.example/doc' }).end();
    await expect(adapter(true).fetchDocument(`http://127.0.0.1:${port}/a`)).rejects.toThrow('answered 302');
    answer = (res) => res.end('x'.repeat(2_000));
    await expect(adapter(true).fetchDocument(`http://127.0.0.1:${port}/b`)).rejects.toThrow('too large');
    answer = (res) => {
      res.writeHead(200);
      res.write('{');
    };
    const slow = new ClientMetadataHttpAdapter({ timeoutMs: 200, maxBytes: 1_024, allowLoopback: true });
    await expect(slow.fetchDocument(`http://127.0.0.1:${port}/c`)).rejects.toThrow();
    answer = (res) => res.end(JSON.stringify(DOCUMENT));
  });
});
