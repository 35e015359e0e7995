/**
 * A mailbox runs the tasks given to it one at a time, in order: the single-writer
 * guarantee for one actor. Different mailboxes run concurrently.
 */
export class Mailbox {
  private tail: Promise<unknown> = Promise.resolve();
  private pendingCount = 0;

  /** Tasks queued or running. */
  get depth(): number {
    return this.pendingCount;
  }

  /** Runs `task` after every task enqueued before it has settled. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.pendingCount++;
    const run = this.tail.then(task);
    // The chain must survive a failed task; the caller still sees the rejection.
    this.tail = run.then(
      () => this.pendingCount--,
      () => this.pendingCount--,
    );
    return run;
  }

  /** Resolves when everything enqueued so far has settled. */
  async drain(): Promise<void> {
    while (this.pendingCount > 0) await this.tail;
  }
}
