/** A read from the service with its loading and error state, and a way to read it again. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText } from '../api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): Promise<void>;
}

export function useLoad<T>(read: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  // The caller names what the read depends on (`deps`), as with useCallback itself.
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setData(await read());
      setError(undefined);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
}
