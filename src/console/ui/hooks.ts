import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** How often pages refresh themselves (the issue asks for ≤ 2 s). */
const POLL_MS = 2000;

export interface Polled<T> {
  data: T | undefined;
  error: string | undefined;
  refresh: () => void;
}

/**
 * Loads now and every POLL_MS while the page is shown; `key` restarts it (e.g. new filters).
 * A 401 sends the page back to the login form through onUnauthorized.
 */
export function usePoll<T>(load: () => Promise<T>, key: string, onUnauthorized: () => void): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const value = await load();
        if (!cancelled) (setData(value), setError(undefined));
      } catch (caught) {
        if (cancelled) return;
        if (caught instanceof ApiError && caught.status === 401) return onUnauthorized();
        setError((caught as Error).message);
      }
      if (!cancelled) timer = setTimeout(run, POLL_MS);
    };
    void run();
    return () => {
      cancelled = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [key, tick]);
  return { data, error, refresh };
}
