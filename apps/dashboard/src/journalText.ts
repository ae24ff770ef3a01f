import type { JournalEvent } from './types';

/** How the journal's words name a channel or a role of the guild (`useGuildNames` of `components/PlatformText`). */
export interface Names {
  channel: (id: string) => string;
  role: (id: string) => string;
}

/** One changed field of an event: its name and its value before and after (absent values are `undefined`). */
export interface Change {
  key: string;
  before: unknown;
  after: unknown;
}

type Data = Record<string, unknown>;

/** Field names of the platform shown as words (docs/journal.md lists each kind's fields). */
const FIELD_WORDS: Record<string, string> = {
  parent_id: 'category',
  rate_limit_per_user: 'slowmode',
  user_limit: 'user limit',
  rtc_region: 'region',
  default_auto_archive_duration: 'default archive time',
  thread_archived: 'archived',
  thread_locked: 'locked',
  permissions: 'permissions',
  verification_level: 'verification level',
  system_channel_id: 'system channel',
};

/** A field name in words (`parent_id` -> "category", `some_field` -> "some field"). */
export function fieldWords(key: string): string {
  return FIELD_WORDS[key] ?? key.replace(/_id$/, '').replace(/_/g, ' ');
}

/** A value in a sentence: text quoted (cut at 60 characters), nothing as "none", anything else as JSON. */
export function valueWords(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'none';
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 59)}…` : value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 59)}…` : json;
}

/**
 * The changed fields an event's `data` carries, in the two shapes of docs/journal.md: `changes` (field names) with
 * `before`/`after` objects (channel, role, guild, expression updates), `changes` as `[{key, before, after}]`
 * (overwrites, webhooks), or `before`/`after` strings (a message's content, a nickname: key `content`/`nickname`).
 */
export function changesOf(kind: string, data: Data): Change[] {
  const { changes, before, after } = data;
  if (Array.isArray(changes) && changes.every((c) => typeof c === 'object' && c !== null && 'key' in c))
    return (changes as Change[]).map((c) => ({ key: c.key, before: c.before, after: c.after }));
  if (typeof before === 'string' || typeof after === 'string')
    return [{ key: kind === 'member_nickname' ? 'nickname' : 'content', before, after }];
  if (typeof before === 'object' && before !== null && typeof after === 'object' && after !== null) {
    const keys = Array.isArray(changes)
      ? (changes as string[])
      : [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.map((key) => ({ key, before: (before as Data)[key], after: (after as Data)[key] }));
  }
  return [];
}

/** `changes` as "topic 'a' → 'b', name 'x' → 'y'" (at most 3, then "and n more"). */
function changeWords(changes: Change[]): string {
  const shown = changes
    .slice(0, 3)
    .map((c) => `${fieldWords(c.key)} ${valueWords(c.before)} → ${valueWords(c.after)}`)
    .join(', ');
  return changes.length > 3 ? `${shown} and ${changes.length - 3} more` : shown;
}

/**
 * What a journal event says in words, one sentence per kind (docs/journal.md): "Noor deleted a message by Ivy in
 * #general", "Selma changed #general: topic 'a' → 'b'". Names come from the event (`actorName`, `targetName`) and the
 * guild's structure (`names`); an unnamed actor is "Someone".
 */
export function describeEvent(e: JournalEvent, names: Names): string {
  const d = e.data as Data;
  const actor = e.actorName ?? 'Someone';
  const target = e.targetName ?? e.target ?? 'someone';
  const inChannel = e.channel ? ` in ${names.channel(e.channel)}` : '';
  const channel = e.targetName ? `#${e.targetName}` : names.channel(e.target ?? e.channel ?? '');
  const changes = changesOf(e.kind, d);
  const changed = changes.length ? `: ${changeWords(changes)}` : '';
  const reason = typeof d.reason === 'string' && d.reason ? ` (reason: ${d.reason})` : '';
  switch (e.kind) {
    case 'message_edit':
      return `${actor} edited a message${inChannel}`;
    case 'message_delete':
      return e.actor && e.actor === e.target
        ? `${actor} deleted their message${inChannel}`
        : `${actor} deleted a message by ${target}${inChannel}${reason}`;
    case 'message_bulk_delete':
      return `${actor} deleted ${String(d.count ?? 'several')} messages${inChannel}`;
    case 'member_join':
      return `${target} joined${d.bot ? ' (a bot)' : ''}`;
    case 'member_leave':
      return `${target} left`;
    case 'member_kick':
      return `${actor} kicked ${target}${reason}`;
    case 'member_ban':
      return `${actor} banned ${target}${reason}`;
    case 'member_unban':
      return `${actor} unbanned ${target}${reason}`;
    case 'member_timeout':
      return d.until
        ? `${actor} timed out ${target} until ${new Date(String(d.until)).toLocaleString()}${reason}`
        : `${actor} lifted the timeout of ${target}${reason}`;
    case 'member_roles': {
      const list = (ids: unknown, sign: string) =>
        Array.isArray(ids) ? ids.map((r) => `${sign}${names.role(r)}`) : [];
      const roles = [...list(d.added, '+'), ...list(d.removed, '−')].join(', ');
      return `${actor} changed the roles of ${target}${roles ? `: ${roles}` : ''}`;
    }
    case 'member_nickname':
      return `${actor} changed the nickname of ${target}${changed}`;
    case 'member_prune':
      return `${actor} pruned ${String(d.removed ?? '?')} members inactive for ${String(d.days ?? '?')} days`;
    case 'bot_add':
      return `${actor} added the bot ${target}`;
    case 'channel_create':
      return `${actor} created ${channel}`;
    case 'channel_update':
      return `${actor} changed ${channel}${changed}`;
    case 'channel_delete':
      return `${actor} deleted ${channel}`;
    case 'overwrite_update':
      return `${actor} ${String(d.action ?? 'update')}d the permissions of ${String(d.overwriteName ?? d.overwrite ?? 'someone')} in ${channel}${changed}`;
    case 'role_create':
      return `${actor} created the role @${target}`;
    case 'role_update':
      return `${actor} changed the role @${target}${changed}`;
    case 'role_delete':
      return `${actor} deleted the role @${target}`;
    case 'guild_update':
      return `${actor} changed the server${changed}`;
    case 'webhook_create':
      return `${actor} created the webhook ${target}${inChannel}`;
    case 'webhook_delete':
      return `${actor} deleted the webhook ${target}${inChannel}`;
    case 'expression_create':
      return `${actor} added the ${String(d.type ?? 'emoji')} ${target}`;
    case 'expression_update':
      return `${actor} changed the ${String(d.type ?? 'emoji')} ${target}${changed}`;
    case 'expression_delete':
      return `${actor} deleted the ${String(d.type ?? 'emoji')} ${target}`;
    case 'verify':
      return `${target} passed verification`;
    case 'forum_status':
      return `${actor} set the status of the post ${valueWords(d.title ?? target)}${inChannel} to ${valueWords(d.tagName)}`;
    case 'settings_update':
      return `${actor} changed the ${String(d.service ?? 'service')} settings`;
    case 'antinuke_response': {
      const detected = (d.detected ?? {}) as Data;
      return `Guildhall stopped ${target}: ${String(detected.count ?? '?')} ${String(detected.kind ?? 'actions')} over the limit of ${String(detected.limit ?? '?')}`;
    }
    default:
      return `${e.kind} by ${actor}`;
  }
}
