import {
  ANTINUKE_KINDS,
  type AntinukeKind,
  type AntinukeSettings,
  type antinukeRoutes,
  type BodyOf,
  badRequest,
  type FieldError,
  type LogSettingsUpdatedEvent,
  type Outbox,
  type PlatformApi,
  platformProblem,
  settingsChanges,
} from '@guildhall/shared';
import { AntinukeSettingsModel, type AntinukeSettingsRow, type LimitRow } from './model';

/** Limits of a guild without stored settings (and of kinds a stored row predates). */
export const DEFAULT_LIMITS: Record<AntinukeKind, LimitRow> = {
  channelDelete: { count: 3, seconds: 10 },
  roleDelete: { count: 3, seconds: 10 },
  ban: { count: 3, seconds: 10 },
  kick: { count: 5, seconds: 10 },
  timeout: { count: 5, seconds: 10 },
  webhookCreate: { count: 3, seconds: 10 },
  dangerousGrant: { count: 2, seconds: 60 },
};

/** Settings of a guild with no stored row: disabled, the default limits, nobody exempt, roles stripped. */
export function defaultAntinukeSettings(guild: string): AntinukeSettingsRow {
  return {
    _id: guild,
    enabled: false,
    limits: { ...DEFAULT_LIMITS },
    exemptRoles: [],
    exemptUsers: [],
    response: 'strip_roles',
    timeoutMinutes: 1440,
    updatedAt: new Date(0),
  };
}

/** The stored anti-nuke settings of `guild` (defaults for whatever is not stored), read from MongoDB. */
export async function loadAntinukeSettings(guild: string): Promise<AntinukeSettingsRow> {
  const row = await AntinukeSettingsModel.findById(guild).lean<AntinukeSettingsRow>();
  const defaults = defaultAntinukeSettings(guild);
  return row ? { ...defaults, ...row, limits: { ...defaults.limits, ...row.limits } } : defaults;
}

/** A stored row as the API's `AntinukeSettings`. */
export function toAntinukeSettings(row: AntinukeSettingsRow): AntinukeSettings {
  return {
    guild: row._id,
    enabled: row.enabled,
    limits: Object.fromEntries(
      ANTINUKE_KINDS.map((k) => [
        k,
        row.limits[k] ? { count: row.limits[k].count, seconds: row.limits[k].seconds } : null,
      ]),
    ) as AntinukeSettings['limits'],
    exemptRoles: row.exemptRoles,
    exemptUsers: row.exemptUsers,
    response: row.response,
    timeoutMinutes: row.timeoutMinutes,
  };
}

const FIELDS = ['enabled', 'limits', 'exemptRoles', 'exemptUsers', 'response', 'timeoutMinutes'] as const;

/**
 * Stores the anti-nuke settings of `guild` (absent fields keep their value). Exempt roles are checked against the
 * guild's roles on the platform (400 naming `body.exemptRoles.<i>`; 502 when the platform does not answer). When
 * something changed, emits `settings.updated` (area `logs`, fields `antinuke.<field>`).
 */
export async function putAntinukeSettings(
  deps: { platform: PlatformApi; outbox: Outbox<'logs'> },
  guild: string,
  input: BodyOf<typeof antinukeRoutes.putAntinukeSettings>,
  by: { id: string; name: string },
): Promise<AntinukeSettingsRow> {
  if (input.exemptRoles?.length) {
    let roles: Set<string>;
    try {
      roles = new Set((await deps.platform.guilds.getRoles(guild)).map((r) => r.id));
    } catch (err) {
      throw platformProblem(err, 'list the roles of the guild');
    }
    const errors: FieldError[] = input.exemptRoles.flatMap((id, i) =>
      roles.has(id) ? [] : [{ field: `body.exemptRoles.${i}`, message: `role ${id} is not in this guild` }],
    );
    if (errors.length) throw badRequest('Some exempt roles are not roles of this guild', errors);
  }
  const before = await loadAntinukeSettings(guild);
  const next: AntinukeSettingsRow = {
    ...before,
    enabled: input.enabled,
    limits: { ...before.limits },
    exemptRoles: input.exemptRoles ? [...new Set(input.exemptRoles)] : before.exemptRoles,
    exemptUsers: input.exemptUsers ? [...new Set(input.exemptUsers)] : before.exemptUsers,
    response: input.response ?? before.response,
    timeoutMinutes: input.timeoutMinutes ?? before.timeoutMinutes,
    updatedAt: new Date(),
  };
  for (const kind of ANTINUKE_KINDS) {
    const limit = input.limits?.[kind];
    if (limit !== undefined) next.limits[kind] = limit;
  }
  const { _id, ...set } = next;
  await AntinukeSettingsModel.updateOne({ _id: guild }, { $set: set }, { upsert: true });
  const changes = settingsChanges(toAntinukeSettings(before), toAntinukeSettings(next), [...FIELDS]).map((c) => ({
    ...c,
    field: `antinuke.${c.field}`,
  }));
  if (changes.length) {
    const event: LogSettingsUpdatedEvent = { actor: by.id, actorName: by.name, area: 'logs', changes };
    await deps.outbox.emit(guild, 'settings.updated', event);
  }
  return next;
}
