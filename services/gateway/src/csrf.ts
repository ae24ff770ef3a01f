import { forbidden } from '@guildhall/shared';
import type { Request } from 'express';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True for methods that change state (POST, PUT, PATCH, DELETE). */
export function isUnsafeMethod(method: string): boolean {
  return UNSAFE.has(method.toUpperCase());
}

/** The origin a browser request came from: the `Origin` header, else the origin of `Referer`, else null. */
export function requestOrigin(req: Request): string | null {
  const origin = req.headers.origin;
  if (origin && origin !== 'null') return origin;
  const referer = req.headers.referer;
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

/**
 * CSRF defence for cookie-authenticated requests (on top of SameSite=Lax): an unsafe method must come from one of
 * the dashboard origins, named by `Origin` (or `Referer`). Throws a 403 problem otherwise; safe methods pass.
 */
export function assertTrustedOrigin(req: Request, allowed: ReadonlySet<string>): void {
  if (!isUnsafeMethod(req.method)) return;
  const origin = requestOrigin(req);
  if (!origin) throw forbidden('Cross-site request refused: Origin or Referer header required');
  if (!allowed.has(origin)) throw forbidden(`Cross-site request refused: origin ${origin} is not allowed`);
}
