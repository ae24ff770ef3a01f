import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, api } from './api';

/** What `useLoad` holds: the answer, the error, whether a load runs, and a way to load again. */
export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/** GETs `path` (null: nothing yet) and keeps the answer; a newer path or `reload` replaces it. */
export function useLoad<T>(path: string | null): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` changes only to load the same path again
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    setError(null);
    api<T>('GET', path)
      .then((d) => {
        if (live) setData(d);
      })
      .catch((e: unknown) => {
        if (live) setError(e instanceof ApiError ? e : new ApiError(0, 'Error', String(e)));
      })
      .finally(() => {
        if (live) setLoading(false);
      });
    return () => {
      live = false;
    };
  }, [path, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload };
}

/** Sets the document title to `<page> · Guildhall`. */
export function useTitle(page: string): void {
  useEffect(() => {
    document.title = `${page} · Guildhall`;
  }, [page]);
}

/** What `useAction` holds: whether a change runs, its problem, and what the last change that succeeded reported. */
export interface Action {
  busy: boolean;
  error: ApiError | null;
  /** The message of the last change that succeeded ('' while one runs, after a failure, or when it gave none). */
  done: string;
  run: (fn: () => Promise<unknown>, done?: string) => Promise<boolean>;
}

/**
 * Runs an API change: `run(fn, done)` clears the last error and message, awaits `fn`, then keeps `done` (shown as the
 * saved status) or the `ApiError` it threw (shown next to the form, with the field named) and returns whether it
 * succeeded. `SaveResult` shows both.
 */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState('');
  const run = useCallback(async (fn: () => Promise<unknown>, message = '') => {
    setBusy(true);
    setError(null);
    setDone('');
    try {
      await fn();
      setDone(message);
      return true;
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'Error', String(e)));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run };
}

/** What `useIdempotencyKey` holds: the key of a submission, and a way to end it. */
export interface IdempotencyKeys {
  /** The key to send with `request` (anything naming what is submitted: path, body). */
  keyFor: (request: unknown) => string;
  /** Ends the current submission (it succeeded): the next one gets a new key, even for the same request. */
  succeeded: () => void;
}

/**
 * `Idempotency-Key`s for one form's submissions: a new submission gets a fresh key (`crypto.randomUUID`); submitting
 * the same request again before one succeeded (a retry after a lost answer or an error, a double submit) reuses its
 * key, so the service acts once and answers the retry with the first request's result. A changed request is a new
 * submission with a new key (the service refuses a key reused with another body).
 */
export function useIdempotencyKey(): IdempotencyKeys {
  const current = useRef<{ request: string; key: string } | null>(null);
  return useMemo(
    () => ({
      keyFor: (request) => {
        const text = JSON.stringify(request);
        if (current.current?.request !== text) current.current = { request: text, key: crypto.randomUUID() };
        return current.current.key;
      },
      succeeded: () => {
        current.current = null;
      },
    }),
    [],
  );
}
