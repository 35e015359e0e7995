import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from 'jose';
import { runCli } from '../../src/cli/agentctl.js';
import { AUDIT, AUDIT_HEADS } from '../../src/operations/audit-log.js';
import { checkpointPayload, extendChain, type ChainedEntry, type ChainHead } from '../../src/operations/audit-chain.js';
import { KeyRingSigner } from '../../src/identity/keys/checkpoint-signer.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { Operator } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

interface Segment {
  entries: ChainedEntry[];
}

describe('tamper-evident audit trail (e2e)', () => {
  let svc: TestService;
  let store: StorePort;
  let alice: Operator;
  let agentId: string;
  const subject = () => `agent:${agentId}`;

  beforeAll(async () => {
    svc = await startTestService();
    store = svc.service.adapters.store;
    alice = await Operator.signIn(svc);
    agentId = (await alice.agent('audited')).agentId;
    // Ten calls on the agent, each flushed on its own: ten segments of one entry, in chain order.
    for (let i = 0; i < 10; i++) {
      expect((await alice.client.get(`/api/nest/agents/${agentId}/status`)).status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
      await svc.service.operations.audit.flush();
    }
    await svc.service.operations.audit.signPending();
  });
  afterAll(() => svc.stop());

  async function ctl(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      argv,
      { AGENTCTL_URL: svc.url, OPS_TOKEN: svc.opsToken },
      { out: (t) => out.push(t), err: (t) => err.push(t) },
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  async function verify() {
    const { code, out } = await ctl('audit', 'verify', agentId, '--json');
    return {
      code,
      verdict: JSON.parse(out) as {
        ok: boolean;
        chain: { entries: number; break?: Record<string, unknown>; checkpoint?: Record<string, unknown> };
      },
    };
  }
  /** The agent's stored segments, oldest first. */
  async function segments() {
    const found = await store.find<Segment>(AUDIT, { index: 'subject', eq: subject() }, { limit: 1000 });
    return found.items.reverse();
  }
  async function rewrite(id: string, change: (entries: ChainedEntry[]) => ChainedEntry[]) {
    const doc = (await store.get<Segment>(AUDIT, id))!;
    const entries = change(structuredClone(doc.data.entries) as ChainedEntry[]);
    await store.put<Segment>(AUDIT, id, {
      data: { entries },
      expectedVersion: doc.version,
      indexes: doc.indexes,
      ...(doc.expiresAt ? { expiresAt: doc.expiresAt } : {}),
    });
    return doc.data.entries;
  }
  const seqOf = (segment: { data: Segment }) => segment.data.entries[0]!.chain!.seq;

  it('verifies an untouched chain, with its head signed by the service key, over agentctl and the ops route', async () => {
    const { code, verdict } = await verify();
    expect(code).toBe(0);
    expect(verdict.ok).toBe(true);
    expect(verdict.chain.entries).toBeGreaterThanOrEqual(10);
    expect(verdict.chain.checkpoint).toMatchObject({ knownKey: true });
    const text = await ctl('audit', 'verify');
    expect(text).toMatchObject({ code: 0, out: expect.stringMatching(/^OK: \d+ chain\(s\), \d+ entries checked, 0 broken$/m) });
    // The ops route answers the ops token only.
    const route = `${svc.url}/api/nest/ops/audit/verify?agentId=${encodeURIComponent(agentId)}`;
    expect((await fetch(route)).status).toBe(401);
    expect((await fetch(route, { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(401);
    const ok = await fetch(route, { headers: { authorization: `Bearer ${svc.opsToken}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: true, chains: 1 });
  });

  it('names an entry one byte of which was flipped', async () => {
    const target = (await segments())[4]!;
    const original = await rewrite(target.id, (entries) => {
      const id = entries[0]!.requestId;
      entries[0]!.requestId = id.slice(0, 3) + String.fromCharCode(id.charCodeAt(3) ^ 1) + id.slice(4);
      return entries;
    });
    const { code, verdict } = await verify();
    expect(code).toBe(1);
    expect(verdict.chain.break).toMatchObject({ seq: seqOf(target), reason: 'hash-mismatch', entry: { segmentId: target.id } });
    const text = await ctl('audit', 'verify', agentId);
    expect(text.out).toContain(`BROKEN ${subject()}: entry ${seqOf(target)} does not match its hash (hash-mismatch)`);
    await rewrite(target.id, () => [...original]);
    expect((await verify()).verdict.ok).toBe(true);
  });

  it('names an entry that was deleted', async () => {
    const list = await segments();
    const target = list[5]!;
    await store.delete(AUDIT, target.id, target.version);
    const { verdict } = await verify();
    expect(verdict.ok).toBe(false);
    expect(verdict.chain.break).toMatchObject({
      seq: seqOf(target),
      reason: 'missing',
      message: `entry ${seqOf(target)} is missing (next present: ${seqOf(target) + 1})`,
      entry: { segmentId: list[6]!.id },
    });
    await store.put(AUDIT, target.id, {
      data: target.data,
      expectedVersion: 0,
      indexes: target.indexes,
      ...(target.expiresAt ? { expiresAt: target.expiresAt } : {}),
    });
    expect((await verify()).verdict.ok).toBe(true);
  });

  it('names two entries that were swapped', async () => {
    const list = await segments();
    const [first, second] = [list[2]!, list[3]!];
    const a = first.data.entries;
    const b = second.data.entries;
    await rewrite(first.id, () => [...b]);
    await rewrite(second.id, () => [...a]);
    const { verdict } = await verify();
    expect(verdict.chain.break).toMatchObject({
      seq: seqOf(second),
      reason: 'out-of-order',
      message: `entry ${seqOf(second)} is out of order (entry ${seqOf(first)} belongs here)`,
    });
    await rewrite(first.id, () => [...a]);
    await rewrite(second.id, () => [...b]);
    expect((await verify()).verdict.ok).toBe(true);
  });

  it('catches a rewrite that recomputed every hash: the signed head no longer matches', async () => {
    const list = await segments();
    const headDoc = (await store.get<ChainHead>(AUDIT_HEADS, subject()))!;
    // Rewrite from entry 3 on with recomputed links, as someone with the store but not the key would.
    const from = 3;
    const kept = list.slice(0, from - 1).map((doc) => doc.data.entries[0]!);
    const last = kept[kept.length - 1]!.chain!;
    const forged = list.slice(from - 1).map((doc) => ({ ...doc.data.entries[0]!, operation: 'agent_status_forged' }));
    const { chained, head } = extendChain(subject(), { seq: last.seq, hash: last.hash, at: kept[kept.length - 1]!.at }, forged);
    const originals = list.slice(from - 1).map((doc) => doc.data.entries);
    for (const [i, doc] of list.slice(from - 1).entries()) await rewrite(doc.id, () => [chained[i]!]);
    await store.put<ChainHead>(AUDIT_HEADS, subject(), {
      data: { ...headDoc.data, ...head },
      expectedVersion: headDoc.version,
      indexes: headDoc.indexes,
    });
    const { verdict } = await verify();
    expect(verdict.chain.break).toMatchObject({ reason: 'checkpoint-invalid', seq: headDoc.data.checkpoint!.seq });

    // Signing the forged head with a key of one's own is no better.
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const { exportJWK, calculateJwkThumbprint } = await import('jose');
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    const own = new KeyRingSigner({ active: async () => ({ kid, privateKey }), jwks: async () => ({ keys: [{ ...jwk, kid }] }) });
    const at = Date.now();
    const jws = await own.sign(checkpointPayload(subject(), { seq: head.seq, hash: head.hash, at }));
    const current = (await store.get<ChainHead>(AUDIT_HEADS, subject()))!;
    await store.put<ChainHead>(AUDIT_HEADS, subject(), {
      data: { ...head, checkpoint: { seq: head.seq, hash: head.hash, at, jws } },
      expectedVersion: current.version,
      indexes: current.indexes,
    });
    const second = (await verify()).verdict;
    expect(second.chain.break).toMatchObject({
      reason: 'checkpoint-invalid',
      message: expect.stringContaining('a key the service does not have'),
    });

    for (const [i, doc] of list.slice(from - 1).entries()) await rewrite(doc.id, () => [...originals[i]!]);
    const restored = (await store.get<ChainHead>(AUDIT_HEADS, subject()))!;
    await store.put<ChainHead>(AUDIT_HEADS, subject(), { data: headDoc.data, expectedVersion: restored.version, indexes: headDoc.indexes });
    expect((await verify()).verdict.ok).toBe(true);
  });

  it('catches entries cut off the end with the head moved back', async () => {
    const list = await segments();
    const headDoc = (await store.get<ChainHead>(AUDIT_HEADS, subject()))!;
    const newest = list[list.length - 1]!;
    const before = list[list.length - 2]!.data.entries[0]!;
    await store.delete(AUDIT, newest.id, newest.version);
    await store.put<ChainHead>(AUDIT_HEADS, subject(), {
      data: { ...headDoc.data, seq: before.chain!.seq, hash: before.chain!.hash, at: before.at },
      expectedVersion: headDoc.version,
      indexes: headDoc.indexes,
    });
    const { verdict } = await verify();
    expect(verdict.chain.break).toMatchObject({
      reason: 'checkpoint-invalid',
      message: expect.stringContaining('are missing (a signed head covered them)'),
    });
  });
});
