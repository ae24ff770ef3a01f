import { createHash } from 'node:crypto';
import type { APIApplication, ApplicationFlags } from 'discord-api-types/v10';
import {
  type CommandBody,
  commandById,
  commandsOf,
  deleteCommand,
  GLOBAL_COMMANDS,
  guildScope,
  overwriteCommands,
  patchCommand,
  requireOwnApplication,
  upsertCommand,
} from '../commands';
import { noContent, ok, type Reply, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';

/**
 * The scope of a command route after checking the caller: the bot's own application only (403 20012), and for
 * guild routes a guild the application is in (403 50001).
 */
function scopeOf(ctx: RequestContext): string {
  requireOwnApplication(ctx.state, ctx.params.application_id, ctx.actor.id, ctx.bearer);
  return ctx.params.guild_id === undefined ? GLOBAL_COMMANDS : guildScope(ctx.state, ctx.params.guild_id);
}

const list = (ctx: RequestContext): Reply => ok(commandsOf(ctx.state, scopeOf(ctx)));
const create = (ctx: RequestContext): Reply => {
  const { command, created } = upsertCommand(ctx.state, scopeOf(ctx), ctx.body as CommandBody);
  return { status: created ? 201 : 200, body: command };
};
const overwrite = (ctx: RequestContext): Reply =>
  ok(overwriteCommands(ctx.state, scopeOf(ctx), (ctx.body as unknown as CommandBody[] | null) ?? []));
const get = (ctx: RequestContext): Reply => ok(commandById(ctx.state, scopeOf(ctx), ctx.params.command_id));
const patch = (ctx: RequestContext): Reply =>
  ok(patchCommand(ctx.state, scopeOf(ctx), ctx.params.command_id, ctx.body as CommandBody));
const remove = (ctx: RequestContext): Reply => {
  deleteCommand(ctx.state, scopeOf(ctx), ctx.params.command_id);
  return noContent();
};

/**
 * The application and its commands, as Discord's application command routes behave: `GET /applications/@me` (the
 * bot's application: id `clientId`, the bot user, no flags); the global commands (`/applications/{id}/commands`) and a guild's
 * (`/applications/{id}/guilds/{guild_id}/commands`): list (200, registration order), create (POST: 201, or 200 when
 * a command of that name and type exists and is updated), bulk overwrite (PUT: ids kept by name and type, `version`
 * bumped only for changed ones, the rest deleted), get / edit (PATCH) / delete (204) by id (404 10063 when unknown).
 * Bodies break the platform's rules -> 400 50035 with the field (see `commands.ts`); past a type's limit -> 400
 * 30032. Only the bot, for its own application, may call them (403 20012); a guild the application is not in is
 * 403 50001. Every call is in the call log (`callsTo`), e.g. to assert a restart registered nothing.
 */
export const applicationRoutes: RouteTable = {
  'GET /applications/@me': (ctx) => {
    if (ctx.bearer) throw errors.unauthorized();
    const application: APIApplication = {
      id: ctx.state.clientId,
      name: ctx.state.botUser.username,
      icon: null,
      description: '',
      bot_public: true,
      bot_require_code_grant: false,
      bot: ctx.state.botUser,
      summary: '',
      verify_key: createHash('sha256').update(`verify-key:${ctx.state.clientSecret}`).digest('hex'),
      team: null,
      flags: 0 as ApplicationFlags,
      flags_new: '0',
    };
    return ok(application);
  },
  'GET /applications/{application_id}/commands': list,
  'POST /applications/{application_id}/commands': create,
  'PUT /applications/{application_id}/commands': overwrite,
  'GET /applications/{application_id}/commands/{command_id}': get,
  'PATCH /applications/{application_id}/commands/{command_id}': patch,
  'DELETE /applications/{application_id}/commands/{command_id}': remove,
  'GET /applications/{application_id}/guilds/{guild_id}/commands': list,
  'POST /applications/{application_id}/guilds/{guild_id}/commands': create,
  'PUT /applications/{application_id}/guilds/{guild_id}/commands': overwrite,
  'GET /applications/{application_id}/guilds/{guild_id}/commands/{command_id}': get,
  'PATCH /applications/{application_id}/guilds/{guild_id}/commands/{command_id}': patch,
  'DELETE /applications/{application_id}/guilds/{guild_id}/commands/{command_id}': remove,
};
