/**
 * Wallet and token-approval routes (the trading routes) and tools (4.5) against the real service:
 * REST with a session, MCP with the official SDK client, idempotency on the guarded routes,
 * and a scan proving no custodial secret key reaches the store, the disk or the logs.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import bs58 from 'bs58';
import { bytesToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTODIAL_KEYS_PURPOSE, LocalKeyCustody } from '../../adapters/key-custody/local-key-custody.adapter.js';
import { TRADING_RECORDS } from '../../agents/portfolio/portfolio.records.js';
import type { WalletRecord } from '../../agents/wallets/wallet.records.js';
import { resolveSecrets } from '../../src/config/secrets.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import { Operator } from '../support/mcp-fixtures.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

const EXTERNAL = '0x52908400098527886E0F7030069857D2E4169EE7';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SPENDER = '0x1111111254EEB25477B68fb85Ed929f73A960582';
const WETH = '0x4200000000000000000000000000000000000006';
const idem = (key: string = randomUUID()) => ({ 'x-idempotency-key': key });

describe('wallets and token approvals (e2e)', () => {
  let svc: TestService;
  let alice: Client;
  let bob: Client;
  let userId: string;
  const base = () => ({
    custodial: `/api/nest/trading/wallets/custodial/${userId}`,
    evm: `/api/nest/trading/evm/wallets/${userId}`,
    approvals: `/api/nest/trading/approvals/${userId}`,
    revoke: `/api/nest/trading/revoke/${userId}`,
  });

  beforeAll(async () => {
    svc = await startTestService();
    alice = new Client(svc.url);
    userId = (await signInSolana(alice)).user.id;
    expect((await alice.post('/api/nest/agents', { name: 'Trader' })).status).toBe(201);
    bob = new Client(svc.url);
    await signInSolana(bob);
    expect((await bob.post('/api/nest/agents', { name: 'Other' })).status).toBe(201);
  });
  afterAll(() => svc.stop());

  it('Solana custodial wallet: state, guarded ensure, replay, mismatch', async () => {
    const { custodial } = base();
    expect(await alice.get(custodial)).toMatchObject({ status: 200, body: { chain: 'solana', exists: false, wallet: null } });

    const missing = await alice.post(custodial, {});
    expect(missing).toMatchObject({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: ['X-Idempotency-Key header is required'] },
    });

    const key = randomUUID();
    const created = await alice.post(custodial, {}, idem(key));
    expect(created.status).toBe(201); // created by this call; 200 below, where it was there

    expect(created.body).toEqual({
      walletId: expect.stringMatching(/^wal_/),
      chain: 'solana',
      address: expect.any(String),
      custodial: true,
      createdAt: expect.any(String),
    });
    expect(bs58.decode(created.body.address)).toHaveLength(32);
    expect(created.headers.get('idempotent-replayed')).toBeNull();

    const replay = await alice.post(custodial, {}, idem(key));
    expect(replay).toMatchObject({ status: 200, body: created.body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const mismatch = await alice.post(custodial, { chain: 'evm' }, idem(key));
    expect(mismatch).toMatchObject({
      status: 422,
      body: { statusCode: 422, message: 'Idempotency key was already used with a different request' },
    });

    // A fresh key runs again and still finds the same wallet: ensure is idempotent by itself.
    expect(await alice.post(custodial, { chain: 'solana' }, idem())).toMatchObject({ status: 200, body: created.body });
    expect(await alice.get(custodial)).toMatchObject({ status: 200, body: { chain: 'solana', exists: true, wallet: created.body } });
  });

  it('EVM wallets: custodial, external (409 when already connected), delegate, default, revoke', async () => {
    const { custodial, evm } = base();
    const ensured = await alice.post(custodial, { chain: 'evm' }, idem());
    expect(ensured.body).toMatchObject({ chain: 'evm', custodial: true, address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
    expect(await alice.get(`${custodial}?chain=evm`)).toMatchObject({ body: { exists: true, wallet: ensured.body } });

    const added = await alice.post(evm, { address: EXTERNAL.toLowerCase(), label: 'ledger' });
    expect(added).toMatchObject({
      status: 201,
      body: { kind: 'external', custodial: false, address: EXTERNAL, isDefault: false, status: 'active', label: 'ledger' },
    });
    expect(await alice.post(evm, { address: EXTERNAL })).toMatchObject({
      status: 409,
      body: { statusCode: 409, message: 'Wallet already connected', error: 'Conflict', code: 'RESOURCE_CONFLICT' },
    });
    expect((await alice.post(evm, { address: '0x1234' })).status).toBe(400);

    expect((await alice.post(`${evm}/delegate`, { spendingCapUsd: 250 })).status).toBe(400);
    const delegate = await alice.post(`${evm}/delegate`, { spendingCapUsd: 250, label: 'dca bot' }, idem());
    expect(delegate).toMatchObject({
      status: 201,
      body: { kind: 'delegate', custodial: true, spendingCapUsd: 250, spentUsd: 0, isDefault: false },
    });
    expect((await alice.post(`${evm}/delegate`, { spendingCapUsd: -5 }, idem())).status).toBe(400);
    // A cap is counted in micro-dollars: below one it would be a cap of nothing, above $1e9 inexact.
    expect(await alice.post(`${evm}/delegate`, { spendingCapUsd: 1e-9 }, idem())).toMatchObject({
      status: 400,
      body: { message: ['spendingCapUsd: must be at least 0.000001'] },
    });
    expect((await alice.post(`${evm}/delegate`, { spendingCapUsd: 2e9 }, idem())).status).toBe(400);
    expect(await alice.post(evm, { address: `0x${'0'.repeat(40)}` })).toMatchObject({
      status: 400,
      body: { message: ['address: must not be the zero address'] },
    });

    const extra = await alice.post(`${evm}/custodial`, { label: 'hot' }, idem());
    expect(extra).toMatchObject({ status: 201, body: { kind: 'custodial', label: 'hot', isDefault: false } });

    const defaulted = await alice.post(`${evm}/default`, { walletId: delegate.body.walletId });
    expect(defaulted).toMatchObject({ status: 200, body: { walletId: delegate.body.walletId, isDefault: true } });
    const list = await alice.get(evm);
    expect(list.status).toBe(200);
    expect(list.body.items.map((w: { walletId: string }) => w.walletId)).toEqual([
      ensured.body.walletId,
      added.body.walletId,
      delegate.body.walletId,
      extra.body.walletId,
    ]);
    expect(list.body.items.filter((w: { isDefault: boolean }) => w.isDefault).map((w: { walletId: string }) => w.walletId)).toEqual([
      delegate.body.walletId,
    ]);
    const paged = await alice.get(`${evm}?limit=3`);
    expect(paged.body.items).toEqual(list.body.items.slice(0, 3));
    expect((await alice.get(`${evm}?limit=3&cursor=${paged.body.nextCursor}`)).body).toEqual({ items: list.body.items.slice(3) });

    // A DELETE reads the query string only: a body (here naming an account) is refused, not dropped.
    expect(await alice.delete(`${evm}/${delegate.body.walletId}`, { agentId: 'agt_another' })).toMatchObject({
      status: 400,
      body: { message: ['a DELETE request takes no body: send its fields (and agentId) in the query string'] },
    });
    const revoked = await alice.delete(`${evm}/${delegate.body.walletId}`);
    expect(revoked).toMatchObject({ status: 200, body: { walletId: delegate.body.walletId, status: 'revoked', isDefault: false } });
    const after = (await alice.get(evm)).body.items as { walletId: string; isDefault: boolean }[];
    expect(after.find((w) => w.isDefault)?.walletId).toBe(ensured.body.walletId);
    expect(await alice.delete(`${evm}/wal_unknown`)).toMatchObject({ status: 404, body: { message: 'Wallet not found' } });
    expect((await alice.post(`${evm}/default`, { walletId: delegate.body.walletId })).status).toBe(404);
    // The Solana wallet is not an EVM wallet.
    const solana = (await alice.get(base().custodial)).body.wallet.walletId as string;
    expect((await alice.delete(`${evm}/${solana}`)).status).toBe(404);
  });

  it('token approvals: record (guarded, replayed), replace, revoke, 404 when none is active', async () => {
    const { approvals, revoke } = base();
    const body = { chain: 'base', token: TOKEN.toLowerCase(), spender: SPENDER, amount: '1000000' };
    expect(await alice.post(approvals, body)).toMatchObject({ status: 400, body: { message: ['X-Idempotency-Key header is required'] } });
    const key = randomUUID();
    const recorded = await alice.post(approvals, body, idem(key));
    expect(recorded).toMatchObject({
      status: 200,
      body: {
        approvalId: expect.stringMatching(/^apr_/),
        chain: 'base',
        token: TOKEN,
        spender: SPENDER,
        amount: '1000000',
        status: 'active',
      },
    });
    const replay = await alice.post(approvals, body, idem(key));
    expect(replay.body).toEqual(recorded.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await alice.post(approvals, { ...body, amount: '5' }, idem(key))).status).toBe(422);

    const replaced = await alice.post(approvals, { ...body, amount: 'unlimited' }, idem());
    expect(replaced.body).toMatchObject({ approvalId: recorded.body.approvalId, amount: 'unlimited', status: 'active' });
    expect((await alice.post(approvals, { ...body, amount: '-1' }, idem())).status).toBe(400);
    expect((await alice.post(approvals, { ...body, chain: 'solana' }, idem())).status).toBe(400);
    // An allowance is a uint256: 78 digits can say more than it holds.
    const tooLarge = ['amount: must be at most 2^256-1 (the uint256 maximum); "unlimited" records the largest allowance'];
    for (const amount of [(2n ** 256n).toString(), '9'.repeat(78)]) {
      expect(await alice.post(approvals, { ...body, amount }, idem()), amount).toMatchObject({ status: 400, body: { message: tooLarge } });
    }
    expect(await alice.post(approvals, { ...body, amount: (2n ** 256n - 1n).toString() }, idem())).toMatchObject({
      status: 200,
      body: { amount: (2n ** 256n - 1n).toString() },
    });
    // Not an address at all: one message each, no checksum complaint on top; a mixed-case address with a wrong checksum: that one.
    const notAddresses = await alice.post(approvals, { ...body, token: 'nope', spender: `0x${'1'.repeat(39)}` }, idem());
    expect(notAddresses).toMatchObject({
      status: 400,
      body: { message: ['token: must be a 0x address of 40 hex digits', 'spender: must be a 0x address of 40 hex digits'] },
    });
    expect(await alice.post(approvals, { ...body, token: TOKEN.replace('A0b', 'a0B') }, idem())).toMatchObject({
      status: 400,
      body: { message: ['token is not a valid EVM address'] },
    });
    // No checksum to check: all-lower and all-upper digits are taken, and answered checksummed.
    for (const token of [TOKEN.toLowerCase(), `0x${TOKEN.slice(2).toUpperCase()}`])
      expect(await alice.post(approvals, { ...body, token }, idem())).toMatchObject({ status: 200, body: { token: TOKEN } });

    const target = { chain: 'base', token: TOKEN, spender: SPENDER };
    expect((await alice.post(revoke, target)).status).toBe(400);
    const revoked = await alice.post(revoke, target, idem());
    expect(revoked).toMatchObject({
      status: 200,
      body: { approvalId: recorded.body.approvalId, status: 'revoked', revokedAt: expect.any(String) },
    });
    expect(await alice.post(revoke, target, idem())).toMatchObject({ status: 404, body: { message: 'Approval not found' } });
    expect(await alice.post(revoke, { ...target, chain: 'arbitrum' }, idem())).toMatchObject({ status: 404 });
  });

  it('an idempotency key reused for another token is 422, not a replay of the first token', async () => {
    // `token` is a secret-named field for the logs; the request's fingerprint must still cover it.
    const { approvals, revoke } = base();
    const key = randomUUID();
    const usdc = await alice.post(approvals, { chain: 'base', token: TOKEN, spender: SPENDER, amount: '7' }, idem(key));
    expect(usdc).toMatchObject({ status: 200, body: { token: TOKEN, amount: '7' } });
    const weth = await alice.post(approvals, { chain: 'base', token: WETH, spender: SPENDER, amount: '7' }, idem(key));
    expect(weth).toMatchObject({ status: 422, body: { message: 'Idempotency key was already used with a different request' } });
    expect(weth.headers.get('idempotent-replayed')).toBeNull();

    expect((await alice.post(approvals, { chain: 'base', token: WETH, spender: SPENDER, amount: '9' }, idem())).status).toBe(200);
    const revokeKey = randomUUID();
    expect(await alice.post(revoke, { chain: 'base', token: TOKEN, spender: SPENDER }, idem(revokeKey))).toMatchObject({
      status: 200,
      body: { token: TOKEN, status: 'revoked' },
    });
    const otherRevoke = await alice.post(revoke, { chain: 'base', token: WETH, spender: SPENDER }, idem(revokeKey));
    expect(otherRevoke).toMatchObject({ status: 422, body: { message: 'Idempotency key was already used with a different request' } });
    // The WETH approval was not revoked by the refused call.
    expect(await alice.post(revoke, { chain: 'base', token: WETH, spender: SPENDER }, idem())).toMatchObject({
      status: 200,
      body: { token: WETH, status: 'revoked' },
    });
  });

  it("another user's :userId is 404 User not found on every wallet route, as another user's agent is 404", async () => {
    const { custodial, evm, approvals, revoke } = base();
    const notFound = { status: 404, body: { statusCode: 404, message: 'User not found', error: 'Not Found' } };
    expect(await bob.get(custodial)).toMatchObject(notFound);
    expect(await bob.post(custodial, {}, idem())).toMatchObject(notFound);
    expect(await bob.get(evm)).toMatchObject(notFound);
    expect(await bob.post(evm, { address: EXTERNAL })).toMatchObject(notFound);
    expect(await bob.post(`${evm}/custodial`, {}, idem())).toMatchObject(notFound);
    expect(await bob.delete(`${evm}/wal_x`)).toMatchObject(notFound);
    expect(await bob.post(approvals, {}, idem())).toMatchObject(notFound);
    expect(await bob.post(revoke, {}, idem())).toMatchObject(notFound);
  });

  describe('over MCP with the official SDK client', () => {
    let operator: Operator;
    let agent: { agentId: string; publicId: string };
    const keys = {} as Record<'read' | 'trade' | 'manage', string>;
    const open: McpClient[] = [];

    beforeAll(async () => {
      operator = await Operator.signIn(svc);
      agent = await operator.agent('mcp-wallets');
      for (const scope of ['read', 'trade', 'manage'] as const) keys[scope] = (await operator.agentKey(agent.agentId, scope)).secret;
    });
    afterAll(() => Promise.all(open.map((client) => client.close())));

    async function connect(scope: 'read' | 'trade' | 'manage'): Promise<McpClient> {
      const client = new McpClient({ name: 'wallets-e2e', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${agent.publicId}`), {
          requestInit: { headers: { Authorization: `Bearer ${keys[scope]}` } },
        }),
      );
      open.push(client);
      return client;
    }
    const call = async (client: McpClient, name: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as { text: string }[])[0]!.text;
      // A refusal's text is its message; its code and message are the structured content.
      if (result.isError) expect((result.structuredContent as { message: string }).message).toBe(text);
      return {
        isError: result.isError,
        body: result.isError ? result.structuredContent : JSON.parse(text),
        structured: result.structuredContent,
      };
    };

    it('lists the wallet tools by scope', async () => {
      const names = async (scope: 'read' | 'trade' | 'manage') => (await (await connect(scope)).listTools()).tools.map((tool) => tool.name);
      const read = await names('read');
      expect(read).toEqual(
        expect.arrayContaining(['trading_wallet_custodial_get', 'trading_evm_wallets_list', 'trading_evm_approvals_list']),
      );
      expect(read).not.toContain('trading_wallet_custodial_ensure');
      expect(await names('trade')).toEqual(
        expect.arrayContaining(['trading_wallet_custodial_ensure', 'trading_evm_wallet_create_custodial', 'trading_evm_approval_record']),
      );
      const manage = await names('manage');
      expect(manage).toEqual(
        expect.arrayContaining(['trading_evm_wallet_add', 'trading_evm_wallet_create_delegate', 'trading_evm_wallet_revoke']),
      );
      expect((await names('trade')).includes('trading_evm_wallet_revoke')).toBe(false);
    });

    it('ensures the custodial wallet (contract shape), idempotently, and replays a keyed call', async () => {
      const trade = await connect('trade');
      const first = await call(trade, 'trading_wallet_custodial_ensure', {});
      expect(first.isError).toBe(false);
      expect(first.structured).toEqual({
        walletId: expect.stringMatching(/^wal_/),
        chain: 'solana',
        address: expect.any(String),
        custodial: true,
        createdAt: expect.any(String),
      });
      expect((await call(trade, 'trading_wallet_custodial_ensure', { chain: 'solana' })).body).toEqual(first.body);

      const idempotencyKey = randomUUID();
      const created = await call(trade, 'trading_evm_wallet_create_custodial', { label: 'mcp', idempotencyKey });
      expect(created.body).toMatchObject({ kind: 'custodial', chain: 'evm', label: 'mcp' });
      expect((await call(trade, 'trading_evm_wallet_create_custodial', { label: 'mcp', idempotencyKey })).body).toEqual(created.body);
      const mismatch = await call(trade, 'trading_evm_wallet_create_custodial', { label: 'other', idempotencyKey });
      expect(mismatch).toMatchObject({ isError: true, body: { code: 'IDEMPOTENCY_MISMATCH' } });
      expect((await call(await connect('read'), 'trading_wallet_custodial_get', { chain: 'solana' })).body).toEqual({
        chain: 'solana',
        exists: true,
        wallet: first.body,
      });
    });

    it('manages EVM wallets and approvals; the operator sees the same account over REST', async () => {
      const manage = await connect('manage');
      const added = await call(manage, 'trading_evm_wallet_add', { address: EXTERNAL });
      expect(added.body).toMatchObject({ kind: 'external', address: EXTERNAL });
      expect(await call(manage, 'trading_evm_wallet_add', { address: EXTERNAL.toLowerCase() })).toMatchObject({
        isError: true,
        body: { message: 'Wallet already connected' },
      });
      const delegate = await call(manage, 'trading_evm_wallet_create_delegate', { spendingCapUsd: 40 });
      expect(delegate.body).toMatchObject({ kind: 'delegate', spendingCapUsd: 40, spentUsd: 0 });
      expect((await call(manage, 'trading_evm_wallet_set_default', { walletId: delegate.body.walletId })).body.isDefault).toBe(true);
      expect((await call(manage, 'trading_evm_wallet_revoke', { walletId: added.body.walletId })).body.status).toBe('revoked');

      const approval = await call(manage, 'trading_evm_approval_record', {
        chain: 'ethereum',
        token: TOKEN,
        spender: SPENDER,
        amount: 'unlimited',
        walletId: delegate.body.walletId,
        idempotencyKey: randomUUID(),
      });
      expect(approval.body).toMatchObject({ walletId: delegate.body.walletId, owner: delegate.body.address, status: 'active' });
      expect(
        (
          await call(manage, 'trading_evm_approval_revoke', {
            chain: 'ethereum',
            token: TOKEN,
            spender: SPENDER,
            idempotencyKey: randomUUID(),
          })
        ).body.status,
      ).toBe('revoked');
      expect((await call(manage, 'trading_evm_approvals_list', { status: 'revoked' })).body.items).toHaveLength(1);
      expect((await call(manage, 'trading_evm_approvals_list', { status: 'active' })).body.items).toHaveLength(0);

      // One key, another token: refused, not answered with the first token's approval.
      const idempotencyKey = randomUUID();
      const first = await call(manage, 'trading_evm_approval_record', {
        chain: 'ethereum',
        token: TOKEN,
        spender: SPENDER,
        amount: '3',
        idempotencyKey,
      });
      expect(first).toMatchObject({ isError: false, body: { token: TOKEN, amount: '3' } });
      const other = await call(manage, 'trading_evm_approval_record', {
        chain: 'ethereum',
        token: WETH,
        spender: SPENDER,
        amount: '3',
        idempotencyKey,
      });
      expect(other).toMatchObject({ isError: true, body: { code: 'IDEMPOTENCY_MISMATCH' } });
      expect(
        (
          await call(manage, 'trading_evm_approval_record', {
            chain: 'ethereum',
            token: TOKEN,
            spender: SPENDER,
            amount: '3',
            idempotencyKey,
          })
        ).body,
      ).toEqual(first.body);

      const mcpList = (await call(manage, 'trading_evm_wallets_list')).body;
      const operatorId = (await operator.client.post('/api/nest/auth/verify')).body.principal.userId as string;
      const restList = await operator.client.get(`/api/nest/trading/evm/wallets/${operatorId}?agentId=${agent.agentId}`);
      expect(restList).toMatchObject({ status: 200, body: mcpList });
    });
  });

  it('no custodial secret key appears in the store, on disk, in responses or in the logs', async () => {
    const store = svc.service.adapters.store;
    // Every collection of the service: each module's records and every machine type's actors.
    const collections = [...svc.service.modules.flatMap((module) => module.collections), ...svc.service.runtime.collections()].map(
      (spec) => spec.name,
    );
    const values: string[] = [];
    for (const name of new Set(collections)) {
      const docs = (await store.list(name, { limit: 1000 })).items;
      for (const doc of docs) {
        values.push(JSON.stringify(doc));
        values.push(JSON.stringify(await store.readJournal(name, doc.id, { limit: 1000 })));
      }
    }
    const wallets = (await store.list<WalletRecord>(TRADING_RECORDS.wallets, { limit: 1000 })).items.map((doc) => doc.data);
    const custodial = wallets.filter((wallet) => wallet.sealedKey);
    expect(custodial.length).toBeGreaterThanOrEqual(6);

    // The test opens the keys the way the service does, to know exactly what must not leak.
    const { DATA_ENCRYPTION_KEY } = resolveSecrets({ profile: 'embedded', dataDir: svc.dataDir, env: {} });
    const custody = new LocalKeyCustody(new SecretBox(DATA_ENCRYPTION_KEY, CUSTODIAL_KEYS_PURPOSE));
    // Labelled, so that a failure names the wallet and the encoding without printing the key.
    const forbidden: { label: string; bytes: Buffer }[] = [];
    for (const wallet of custodial) {
      const secret = await custody.withSecretKey(wallet.chain, wallet.walletId, wallet.sealedKey!, async (key) => Buffer.from(key));
      // Non-vacuous: these are the real keys of the addresses.
      if (wallet.chain === 'solana') expect(bs58.encode(secret.subarray(32))).toBe(wallet.address);
      else expect(privateKeyToAccount(bytesToHex(secret)).address).toBe(wallet.address);
      const secretPart = wallet.chain === 'solana' ? secret.subarray(0, 32) : secret;
      for (const [part, bytes] of [
        ['key', secret],
        ['secret half', secretPart],
      ] as const) {
        const forms = {
          hex: bytes.toString('hex'),
          HEX: bytes.toString('hex').toUpperCase(),
          base64: bytes.toString('base64'),
          base64url: bytes.toString('base64url'),
          base58: bs58.encode(bytes),
        };
        forbidden.push({ label: `${wallet.walletId} ${part} raw`, bytes: Buffer.from(bytes) });
        for (const [name, form] of Object.entries(forms)) {
          forbidden.push(
            { label: `${wallet.walletId} ${part} ${name}`, bytes: Buffer.from(form) },
            { label: `${wallet.walletId} ${part} ${name} utf16`, bytes: Buffer.from(form, 'utf16le') },
          );
        }
      }
    }

    const disk = filesUnder(svc.dataDir).map((file) => readFileSync(file));
    const responses = [JSON.stringify((await alice.get(base().evm)).body), JSON.stringify((await alice.get(base().custodial)).body)];
    const haystacks = [...values, ...svc.logs, ...responses].map((text) => Buffer.from(text)).concat(disk);
    // The scan reads real data: public addresses are there, on disk and in the store.
    const address = Buffer.from(custodial[0]!.address);
    expect(disk.some((bytes) => bytes.includes(address))).toBe(true);
    expect(values.some((text) => text.includes(custodial[0]!.address))).toBe(true);
    expect(svc.logs.length).toBeGreaterThan(0);
    const found = forbidden.filter((needle) => haystacks.some((haystack) => haystack.includes(needle.bytes))).map((needle) => needle.label);
    expect(found).toEqual([]);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}
