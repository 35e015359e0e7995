import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { ExecutionJournal, LIVE_EXECUTIONS, type FinalResult } from '../../adapters/resilience/execution-journal.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { StorePort } from '../../kernel/ports/store.port.js';

const signed = {
  clientOrderId: 'ord_1',
  chain: 'solana',
  status: 'signed',
  owner: 'owner',
  outputMint: 'mint',
  expectedOut: '100',
  txSignature: 'sig',
  rawTx: 'AQID',
} as const;
const filled = (n: number): FinalResult => ({ status: 'filled', filledOut: String(n), txSignature: 'sig', at: n });

describe('ExecutionJournal.settle', () => {
  it('30 concurrent settles of one order from two processes on one LMDB directory record one result, which all of them answer', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const dir = await mkdtemp(join(tmpdir(), 'execution-journal-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    try {
      for (const store of handles) await store.init([LIVE_EXECUTIONS]);
      const journals = handles.map((store) => new ExecutionJournal(store, 'jupiter', clock));
      await journals[0]!.create(signed);
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => journals[i % 2]!.settle('ord_1', filled(i + 1))));
      const stored = await journals[1]!.get('ord_1');
      // Created (1), settled once (2): every other settle found the result and wrote nothing.
      expect(stored).toMatchObject({ version: 2, record: { status: 'filled' } });
      expect(answers.every((answer) => JSON.stringify(answer) === JSON.stringify(stored!.record.result))).toBe(true);
    } finally {
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a settle that keeps losing answers what is recorded by then, else its own result', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const memory = new MemoryStore(clock);
    await memory.init([LIVE_EXECUTIONS]);
    await new ExecutionJournal(memory, 'jupiter', clock).create(signed);
    let puts = 0;
    const overtaken = Object.assign(Object.create(memory) as StorePort, {
      put: async () => {
        puts++;
        throw new AppError('VERSION_CONFLICT', 'Version conflict on live.executions/jupiter:ord_1: expected 1, found 2');
      },
    });
    expect(await new ExecutionJournal(overtaken, 'jupiter', clock).settle('ord_1', filled(7))).toEqual(filled(7));
    expect(puts).toBe(3);
    await expect(new ExecutionJournal(memory, 'jupiter', clock).settle('ord_unknown', filled(1))).rejects.toMatchObject({
      kind: 'internal',
    });
  });
});
