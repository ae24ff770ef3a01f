import { badRequest, HttpProblem } from '@guildhall/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { gatewayState } from './state';

/** The media types the services parse as JSON (`application/json` and any `application/*+json`), without parameters. */
const JSON_MEDIA_TYPE = /^application\/(?:[^/\s;]+\+)?json$/;

/**
 * True when the request carries a body (RFC 9110 section 6.4.1): a `Content-Length` above 0, or a
 * `Transfer-Encoding` (a chunked body, counted as a body even when it turns out empty).
 */
export function requestHasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Refuses a body the matched route cannot use, before authentication and before anything is proxied (so nothing
 * changes): a body whose `Content-Type` is missing or not JSON -> 415 `unsupported_media_type` (the service would
 * drop it and run the route as if it were empty); a JSON body on a route whose contract declares none (e.g.
 * `PUT …/tickets/blacklist/{member}`, `DELETE …/tickets/types/{type}`, `POST /api/staff/promo/{batch_id}/codes/{code}/revoke`)
 * -> 400 `body_not_allowed` naming `body`. Raw-body routes (`bodyType: 'raw'`: the payment providers' webhooks,
 * whose signature covers the exact bytes) pass untouched. Runs after the route matcher (reads its gateway state).
 */
export function refuseUnusableBody(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const { route } = gatewayState(res);
    if (route.bodyType === 'raw' || !requestHasBody(req)) {
      next();
      return;
    }
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!JSON_MEDIA_TYPE.test(mediaType))
      throw new HttpProblem(
        415,
        `The request body must be application/json (Content-Type: ${mediaType || 'missing'})`,
        { contentType: mediaType || null },
        'unsupported_media_type',
      );
    if (!route.body)
      throw badRequest(
        `${req.method} ${route.path} takes no body; send the request without one`,
        [{ field: 'body', message: 'not allowed: this route takes no body' }],
        'body_not_allowed',
      );
    next();
  };
}
