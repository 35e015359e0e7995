/**
 * The one way a console button or form runs something on the service: busy while it runs (a
 * second click does nothing), the service's message when it fails — beside the form, or as a
 * toast for row buttons that have no place for it — and what to read again once it is done.
 */
import { useRef, useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { toast } from '../toast.js';

export interface Action<A extends unknown[]> {
  /** Runs the action unless one is under way; answers whether it went through. */
  run(...args: A): Promise<boolean>;
  busy: boolean;
  /** The arguments of the run under way: which of several buttons sharing the action is busy. */
  running: A | undefined;
  /** The last failure's text, until the next run (inline reporting only). */
  error: string | undefined;
  clearError(): void;
}

export interface ActionOptions {
  /** `inline` (default): the failure is `error`, for an ErrorText beside the form; `toast`: it is a toast, prefixed with `label`. */
  report?: 'inline' | 'toast';
  /** Names the thing acted on in a toast (`<label>: <message>`), where a row's toast would otherwise not say which row. */
  label?: string;
  /** After every run, success or failure: what shows the result reads again. */
  settled?(): void | Promise<void>;
  /** After a failure, besides reporting it (e.g. clearing a code field that was wrong). */
  failed?(): void;
}

export function useAction<A extends unknown[]>(act: (...args: A) => Promise<unknown>, options: ActionOptions = {}): Action<A> {
  const [running, setRunning] = useState<A | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  // The latest closures: a run started from an old render still acts with the current form values.
  const latest = useRef({ act, options });
  latest.current = { act, options };
  const busyRef = useRef(false);

  const run = async (...args: A): Promise<boolean> => {
    if (busyRef.current) return false;
    busyRef.current = true;
    setRunning(args);
    setError(undefined);
    const { act: current, options: opts } = latest.current;
    try {
      await current(...args);
      return true;
    } catch (caught) {
      const text = errorText(caught);
      if (opts.report === 'toast') toast(opts.label ? `${opts.label}: ${text}` : text, 'error');
      else setError(text);
      opts.failed?.();
      return false;
    } finally {
      busyRef.current = false;
      setRunning(undefined);
      await opts.settled?.();
    }
  };

  return {
    run,
    busy: running !== undefined,
    running,
    error,
    clearError: () => setError(undefined),
  };
}
