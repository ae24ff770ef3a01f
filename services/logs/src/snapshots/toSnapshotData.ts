import type { APIGuildMember } from 'discord-api-types/v10';
import { displayName } from '../dispatch';

/** Fields of the guild object kept in its snapshot and compared for `guild_update`. */
export const GUILD_FIELDS = [
  'name',
  'icon',
  'splash',
  'banner',
  'description',
  'owner_id',
  'afk_channel_id',
  'afk_timeout',
  'verification_level',
  'default_message_notifications',
  'explicit_content_filter',
  'mfa_level',
  'system_channel_id',
  'system_channel_flags',
  'rules_channel_id',
  'public_updates_channel_id',
  'safety_alerts_channel_id',
  'preferred_locale',
  'premium_progress_bar_enabled',
  'vanity_url_code',
  'features',
] as const;

/** The guild fields of a GUILD_CREATE/GUILD_UPDATE payload that the snapshot keeps. */
export function guildData(d: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of GUILD_FIELDS) if (field in d) out[field] = d[field];
  return out;
}

/**
 * Documented channel fields compared for `channel_update`, with the value the platform means when it omits one
 * (`nsfw` absent = false). Counters, last-message fields and fields not listed here (anything the platform adds
 * later) never produce a change; permission overwrites are journaled as `overwrite_update` from the audit log.
 */
const CHANNEL_FIELDS: Record<string, unknown> = {
  type: null,
  name: null,
  topic: null,
  nsfw: false,
  position: null,
  parent_id: null,
  rate_limit_per_user: 0,
  bitrate: null,
  user_limit: 0,
  rtc_region: null,
  video_quality_mode: 1,
  default_auto_archive_duration: null,
  default_thread_rate_limit_per_user: 0,
  available_tags: [],
  applied_tags: [],
  default_reaction_emoji: null,
  default_sort_order: null,
  default_forum_layout: 0,
  flags: 0,
};
/** Thread metadata compared for `channel_update` (not `archive_timestamp`, which moves by itself). */
const THREAD_FIELDS: Record<string, unknown> = {
  archived: false,
  locked: false,
  auto_archive_duration: null,
  invitable: true,
};

/** The compared view of a channel or thread: `CHANNEL_FIELDS` plus thread metadata as `thread_<field>`. */
export function channelView(c: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, absent] of Object.entries(CHANNEL_FIELDS)) out[field] = c[field] ?? absent;
  const meta = c.thread_metadata as Record<string, unknown> | undefined;
  if (meta) for (const [field, absent] of Object.entries(THREAD_FIELDS)) out[`thread_${field}`] = meta[field] ?? absent;
  return out;
}

/** The member facts the snapshot keeps (names, roles, screening and timeout state). */
export function memberData(
  m: Partial<APIGuildMember> & { user: NonNullable<APIGuildMember['user']> },
): Record<string, unknown> {
  return {
    name: displayName(m.user, m.nick),
    username: m.user.username,
    bot: Boolean(m.user.bot),
    nick: m.nick ?? null,
    roles: m.roles ?? [],
    pending: Boolean(m.pending),
    communication_disabled_until: m.communication_disabled_until ?? null,
    joined_at: m.joined_at ?? null,
  };
}

/** Keys whose values differ between `before` and `after` (JSON comparison), skipping `ignore`. */
export function changedKeys(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  ignore: ReadonlySet<string> = new Set(),
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter(
    (k) => !ignore.has(k) && JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null),
  );
}

/** `{before, after, changes}` restricted to the changed keys (the `data` of update events). */
export function diffData(before: Record<string, unknown>, after: Record<string, unknown>, keys: string[]) {
  return {
    changes: keys,
    before: Object.fromEntries(keys.map((k) => [k, before[k] ?? null])),
    after: Object.fromEntries(keys.map((k) => [k, after[k] ?? null])),
  };
}
