import { z } from 'zod';
import { GuildParams, Snowflake } from './common';
import { defineRoute } from './route';

/**
 * What anti-nuke counts, each from its audit-log entry (docs/antinuke.md): `channelDelete` (channel or thread
 * delete), `roleDelete`, `ban`, `kick`, `timeout` (a member timed out), `webhookCreate`, and `dangerousGrant` (a
 * role created with, or updated to gain, a dangerous permission, or a role carrying one added to a member).
 */
export const ANTINUKE_KINDS = [
  'channelDelete',
  'roleDelete',
  'ban',
  'kick',
  'timeout',
  'webhookCreate',
  'dangerousGrant',
] as const;
export type AntinukeKind = (typeof ANTINUKE_KINDS)[number];

/** "`count` actions by one actor within `seconds` seconds" (null in `limits`: the kind is not watched). */
export const AntinukeLimit = z
  .strictObject({
    count: z.number().int().min(1).max(100),
    seconds: z.number().int().min(1).max(3600),
  })
  .meta({ id: 'AntinukeLimit' });

/** How the actor of a burst is stopped: their roles carrying dangerous permissions removed, or a timeout. */
export const AntinukeResponseKind = z.enum(['strip_roles', 'timeout'], {
  error: () => 'must be one of: strip_roles, timeout',
});

/** Per-guild anti-nuke settings (off by default). */
export const AntinukeSettings = z
  .strictObject({
    guild: Snowflake,
    enabled: z.boolean(),
    limits: z.strictObject({
      channelDelete: AntinukeLimit.nullable(),
      roleDelete: AntinukeLimit.nullable(),
      ban: AntinukeLimit.nullable(),
      kick: AntinukeLimit.nullable(),
      timeout: AntinukeLimit.nullable(),
      webhookCreate: AntinukeLimit.nullable(),
      dangerousGrant: AntinukeLimit.nullable(),
    }),
    exemptRoles: z.array(Snowflake),
    exemptUsers: z.array(Snowflake),
    response: AntinukeResponseKind,
    timeoutMinutes: z.number().int(),
  })
  .meta({ id: 'AntinukeSettings' });
export type AntinukeSettings = z.infer<typeof AntinukeSettings>;

const AntinukeSettingsResponse = z
  .strictObject({ settings: AntinukeSettings })
  .meta({ id: 'AntinukeSettingsResponse' });

const SETTINGS_DESCRIPTION =
  'Anti-nuke watches audit-log entries and stops an actor who does `count` actions of one kind within `seconds` ' +
  '(kinds: `channelDelete`, `roleDelete`, `ban`, `kick`, `timeout`, `webhookCreate`, `dangerousGrant` = a role created with or ' +
  'given Administrator, Manage Server, Manage Roles, Manage Channels, Manage Webhooks, Ban Members, Kick Members or ' +
  "Moderate Members, or such a role added to a member). `response`: `strip_roles` removes the actor's roles that " +
  'carry one of those permissions, `timeout` times the actor out for `timeoutMinutes`. An action Guildhall takes for a ' +
  "person (a case ban, a journal undo...: the bot's entry whose reason starts `[for <id>]`) counts against that " +
  'person. The guild owner, the bot ' +
  'itself, `exemptUsers` and members holding one of `exemptRoles` are never acted on. Each response is an ' +
  '`antinuke_response` journal event and an alert in the moderation log.';

export const antinukeRoutes = {
  getAntinukeSettings: defineRoute({
    id: 'getAntinukeSettings',
    method: 'get',
    path: '/api/v1/servers/{guild}/antinuke',
    service: 'logs',
    auth: 'guild',
    cap: 'antinuke.manage',
    inSpec: false,
    summary: 'Anti-nuke settings',
    description:
      `${SETTINGS_DESCRIPTION} Defaults (no stored settings): disabled; channelDelete, roleDelete, ban and ` +
      'webhookCreate 3 in 10 s, kick and timeout 5 in 10 s, dangerousGrant 2 in 60 s; nobody exempt; `strip_roles`; ' +
      '`timeoutMinutes` 1440. Read from the logs service store.',
    params: GuildParams,
    success: { status: 200, schema: AntinukeSettingsResponse, description: 'The settings' },
    errors: [],
  }),
  putAntinukeSettings: defineRoute({
    id: 'putAntinukeSettings',
    method: 'put',
    path: '/api/v1/servers/{guild}/antinuke',
    service: 'logs',
    auth: 'guild',
    cap: 'antinuke.manage',
    inSpec: false,
    summary: 'Set anti-nuke settings',
    description:
      `${SETTINGS_DESCRIPTION} \`enabled\` is required; every other field is optional (absent keeps the stored ` +
      'value); in `limits` an absent kind keeps its limit and null stops watching it. `exemptRoles` and ' +
      '`exemptUsers` hold at most 50 ids each; every exempt role must be a role of this guild (400 naming ' +
      "`body.exemptRoles.<i>` otherwise). `timeoutMinutes`: 1-40320 (28 days, the platform's longest timeout). A " +
      'change emits `settings.updated` (area `logs`, fields `antinuke.<field>`), journaled as `settings_update`.',
    params: GuildParams,
    body: z.strictObject({
      enabled: z.boolean(),
      limits: z
        .strictObject({
          channelDelete: AntinukeLimit.nullable().optional(),
          roleDelete: AntinukeLimit.nullable().optional(),
          ban: AntinukeLimit.nullable().optional(),
          kick: AntinukeLimit.nullable().optional(),
          timeout: AntinukeLimit.nullable().optional(),
          webhookCreate: AntinukeLimit.nullable().optional(),
          dangerousGrant: AntinukeLimit.nullable().optional(),
        })
        .optional(),
      exemptRoles: z.array(Snowflake).max(50).optional(),
      exemptUsers: z.array(Snowflake).max(50).optional(),
      response: AntinukeResponseKind.optional(),
      timeoutMinutes: z.number().int().min(1).max(40_320).optional(),
    }),
    success: { status: 200, schema: AntinukeSettingsResponse, description: 'The stored settings' },
    errors: [400, 502],
  }),
};
