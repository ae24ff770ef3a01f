/** One field a problem+json answer names (`errors` of the gateway's and services' 400s). */
export interface FieldError {
  field: string;
  message: string;
}

/** An error answer of the API (RFC 9457 problem+json), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    /** The problem's machine-readable `code` (e.g. `hierarchy`, `self`, `case_busy`), empty when it has none. */
    readonly code = '',
  ) {
    super(detail || title);
  }

  /** The message for `field` (e.g. `body.reason` or `reason`), if the problem names it. */
  forField(field: string): string | undefined {
    return this.errors.find((e) => e.field === field || e.field.endsWith(`.${field}`))?.message;
  }
}

/** Listeners told when an answer says the session is gone (401), so the app can show the sign-in page. */
const signedOutListeners = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/**
 * Calls the public API on this origin with the session cookie (same-origin; the gateway's CSRF check accepts the
 * `Origin` the browser sends on unsafe methods). JSON in and out; an empty answer is `undefined`. `idempotencyKey`
 * is sent as the `Idempotency-Key` header (see `useIdempotencyKey`). Throws `ApiError` with the problem's title,
 * detail, field errors and `code` on any non-2xx answer, status 0 when no answer arrived.
 */
export async function api<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        ...(body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' }),
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, 'Network error', (err as Error).message);
  }
  const text = await res.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!res.ok) {
    const problem = (parsed ?? {}) as { title?: string; detail?: string; errors?: FieldError[]; code?: string };
    if (res.status === 401) for (const l of signedOutListeners) l();
    throw new ApiError(
      res.status,
      problem.title ?? res.statusText,
      problem.detail ?? '',
      problem.errors ?? [],
      problem.code ?? '',
    );
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `/api/v1/servers/{guild}` + `path`, with the query's defined, non-empty values appended. */
export function guildPath(guild: string, path: string, query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, v);
  const qs = q.toString();
  return `/api/v1/servers/${guild}${path}${qs ? `?${qs}` : ''}`;
}
