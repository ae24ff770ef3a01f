import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { ApiError, api, onSignedOut } from './api';
import type { DashboardGuild, Me } from './types';

interface SessionState {
  /** The signed-in user and their guilds; null while unknown or signed out. */
  me: Me | null;
  loading: boolean;
  error: ApiError | null;
  refresh: () => void;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

/** Set by the gateway next to the HttpOnly session cookie (and cleared with it): a session may exist. */
const SIGNED_IN_COOKIE = 'service_signed_in';

function maybeSignedIn(): boolean {
  return document.cookie.split(';').some((c) => c.trim().startsWith(`${SIGNED_IN_COOKIE}=`));
}

/**
 * Loads `GET /auth/me` (401 = signed out) when the gateway's signed-in marker cookie says a session may exist, so a
 * signed-out visit asks nothing; offers sign-out (`POST /auth/logout`).
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const refresh = useCallback(() => {
    if (!maybeSignedIn()) {
      setMe(null);
      setLoading(false);
      return;
    }
    setLoading(true);
    api<Me>('GET', '/auth/me')
      .then((m) => {
        setMe(m);
        setError(null);
      })
      .catch((e: unknown) => {
        setMe(null);
        setError(e instanceof ApiError && e.status !== 401 ? e : null);
      })
      .finally(() => setLoading(false));
  }, []);
  useEffect(refresh, [refresh]);
  useEffect(() => onSignedOut(() => setMe(null)), []);
  const signOut = useCallback(async () => {
    await api('POST', '/auth/logout');
    setMe(null);
  }, []);
  return <SessionContext.Provider value={{ me, loading, error, refresh, signOut }}>{children}</SessionContext.Provider>;
}

/** The session of the app (inside `SessionProvider`). */
export function useSession(): SessionState {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession outside SessionProvider');
  return ctx;
}

/** The guild of `/auth/me` with this id, if the user may open it. */
export function useGuild(id: string | undefined): DashboardGuild | undefined {
  return useSession().me?.guilds.find((g) => g.id === id);
}

/** Where sign-in starts: the gateway's OAuth login, landing back on `next` (this page by default). */
export function loginHref(next = window.location.pathname + window.location.search): string {
  return `/auth/login?next=${encodeURIComponent(next)}`;
}
