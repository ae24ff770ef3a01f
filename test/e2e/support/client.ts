import { type ApiRoute, apiRoutes, RouteMatcher } from '@guildhall/shared';
import type { Coverage } from './coverage';

/** One answer: status, headers and parsed body (JSON, or text otherwise). */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  route: ApiRoute | null;
}

/** `res` when its status is `status`; else throws naming the status and body the gateway answered instead. */
export function expectStatus(res: Answer, status: number): Answer {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/**
 * An HTTP client for the gateway that acts as a dashboard (session cookie + Origin), as staff (bearer) or as
 * nobody. Every answer is recorded in the coverage table; every success of a contract route is checked against
 * the route's strict response schema (no missing, no extra fields), and every error must be problem+json.
 */
export class ApiClient {
  private readonly matcher = new RouteMatcher(apiRoutes);

  constructor(
    private readonly baseUrl: string,
    private readonly coverage: Coverage,
    private readonly auth: { cookie?: string; bearer?: string; origin?: string } = {},
  ) {}

  /** A client with other credentials on the same gateway and coverage. */
  as(auth: { cookie?: string; bearer?: string; origin?: string }): ApiClient {
    return new ApiClient(this.baseUrl, this.coverage, auth);
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.send('GET', path, undefined, headers);
  }
  post(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.send('POST', path, body, headers);
  }
  put(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.send('PUT', path, body, headers);
  }
  patch(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.send('PATCH', path, body, headers);
  }

  /** Sends raw bytes (webhooks). */
  async raw(path: string, bytes: Buffer | string, headers: Record<string, string>): Promise<Answer> {
    return this.finish('POST', path, await fetch(`${this.baseUrl}${path}`, { method: 'POST', headers, body: bytes }));
  }

  async send(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...extra };
    if (this.auth.cookie) headers.cookie = `service_session=${this.auth.cookie}`;
    if (this.auth.bearer) headers.authorization = `Bearer ${this.auth.bearer}`;
    if (this.auth.origin) headers.origin = this.auth.origin;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    return this.finish(method, path, res);
  }

  private async finish(method: string, path: string, res: Response): Promise<Answer> {
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const ndjson = type.includes('application/x-ndjson');
    // NDJSON: the body is the array of lines, each parsed (a line that is not JSON throws here).
    const body = ndjson
      ? text.split('\n').flatMap((line) => (line ? [JSON.parse(line)] : []))
      : text && type.includes('json')
        ? JSON.parse(text)
        : text;
    const route = this.coverage.record(method, path, res.status);
    const match = this.matcher.match(method, path.split('?')[0]!);
    const contract = match && 'route' in match ? match.route : null;
    if (contract && res.status === contract.success.status && contract.success.schema) {
      const schema = contract.success.schema;
      for (const value of contract.success.contentType === 'application/x-ndjson' ? body : [body]) {
        const parsed = schema.safeParse(value);
        if (!parsed.success) {
          throw new Error(
            `${method} ${path}: answer (${type}) does not match ${contract.id}: ` +
              `${JSON.stringify(parsed.error.issues.slice(0, 3))} in ${JSON.stringify(value).slice(0, 200)}`,
          );
        }
      }
    }
    if (contract && res.status === contract.success.status && !contract.success.schema && text !== '') {
      throw new Error(`${method} ${path}: expected an empty body, got ${text.slice(0, 100)}`);
    }
    if (res.status >= 400 && !type.includes('application/problem+json')) {
      throw new Error(`${method} ${path}: error ${res.status} is not problem+json (${type}): ${text.slice(0, 200)}`);
    }
    return { status: res.status, headers: res.headers, body, route };
  }
}
