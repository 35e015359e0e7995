/**
 * Runs tasks with the same key one at a time (in call order) and tasks with different
 * keys concurrently. Records written by compare-and-set (positions, daily volume) are
 * hot for one account under concurrent trades: queueing this process's writers turns
 * certain conflicts and retries into a short wait; other processes still meet the CAS.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // The last task of a key removes it, so idle keys do not accumulate.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
