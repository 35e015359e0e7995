import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../../agents/trading/keyed-queue.js';

describe('KeyedQueue', () => {
  it('runs one key in call order, one at a time, and different keys concurrently; a failure does not block the key', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const task =
      (name: string, fail = false) =>
      async () => {
        running++;
        most = Math.max(most, running);
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`end ${name}`);
        running--;
        if (fail) throw new Error(name);
        return name;
      };
    const a = [
      queue.run('a', task('a1')),
      queue.run('a', task('a2', true)).catch((e: Error) => `failed ${e.message}`),
      queue.run('a', task('a3')),
    ];
    const b = queue.run('b', task('b1'));
    expect(await Promise.all([...a, b])).toEqual(['a1', 'failed a2', 'a3', 'b1']);
    const onlyA = log.filter((line) => line.endsWith('a1') || line.endsWith('a2') || line.endsWith('a3'));
    expect(onlyA).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    expect(most).toBe(2); // a and b overlapped, never two of a
  });
});
