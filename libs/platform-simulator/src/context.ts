import type { APIUser } from 'discord-api-types/v10';
import type { UploadedFile } from './cdn';
import type { OAuthGrant, PlatformState } from './state';

/** What a route handler sees of a request. */
export interface RequestContext {
  method: string;
  /** Path without `/api/v10`. */
  path: string;
  /** Matched OpenAPI template. */
  route: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /** JSON body (or `payload_json` / form fields of a multipart body); `{}` when none was sent. */
  body: Record<string, unknown>;
  files: UploadedFile[];
  reason?: string;
  /** The OAuth2 grant of a `Bearer` request; absent for bot requests. */
  bearer?: OAuthGrant;
  state: PlatformState;
  /** Who makes the call: the bot for REST requests, a member for `actAsUser` actions (author, audit `user_id`). */
  actor: APIUser;
}

/** A handler's answer: status and JSON body (none for 204). */
export interface Reply {
  status: number;
  body?: unknown;
}

/** Handles one operation; throws `DiscordError` for Discord error answers. */
export type Handler = (ctx: RequestContext) => Reply;

/** Handlers keyed by `METHOD /openapi/template`. */
export type RouteTable = Record<string, Handler>;

/** 200 with a JSON body. */
export const ok = (body: unknown): Reply => ({ status: 200, body });
/** 204 without a body. */
export const noContent = (): Reply => ({ status: 204 });
