/** A push/pull queue behind an async iterator: the stream pushes, `for await` pulls; an error ends it. */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  private ended: { error?: unknown } | undefined;

  constructor(private readonly onReturn: () => void) {}

  push(item: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** Ends the iteration, after the items already queued; with `error`, the next pull rejects with it. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = error === undefined ? {} : { error };
    if (this.waiting && this.items.length === 0) {
      const { resolve, reject } = this.waiting;
      this.waiting = undefined;
      if (error === undefined) resolve({ value: undefined, done: true });
      else reject(error);
    }
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.ended) {
      const { error } = this.ended;
      this.ended = {};
      return error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.onReturn();
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
