/**
 * Whether `promise` settles within `ms`: true once it resolves, false when the time is up
 * first (it keeps running; nobody waits for it any more). A rejection is rethrown. The timer
 * is cleared either way and never keeps the process alive.
 */
export async function settlesWithin(promise: PromiseLike<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve(promise).then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
