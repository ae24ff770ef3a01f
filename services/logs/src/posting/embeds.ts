import { cutCodePoints } from '@guildhall/shared';
import type { APIEmbed } from 'discord-api-types/v10';
import type { EventRow } from '../journal/model';
import { CATEGORY_COLOR, KIND_CATEGORY } from './categories';

/** The platform's limit on the total characters of the embeds of one message. */
export const MAX_EMBED_CHARS_PER_MESSAGE = 6000;
/** The platform's limit on embeds per message. */
export const MAX_EMBEDS_PER_MESSAGE = 10;

function clip(text: string, max: number): string {
  return cutCodePoints(text, max, '…');
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function who(id: string | null, name: string | null): string {
  if (!id) return 'unknown';
  return name ? `${name} (<@${id}>)` : `<@${id}>`;
}

function roleList(ids: unknown): string {
  return (Array.isArray(ids) ? ids : []).map((r) => `<@&${r}>`).join(' ') || '(none)';
}

/** What a deleted message showed: its text, else its embeds' titles and descriptions and its stickers' names. */
function messageText(d: Record<string, unknown>): string {
  if (typeof d.content === 'string' && d.content) return d.content;
  const embeds = (Array.isArray(d.embeds) ? d.embeds : []) as Array<{ title?: string; description?: string }>;
  const stickers = (Array.isArray(d.stickers) ? d.stickers : []) as Array<{ name?: string }>;
  return [
    ...embeds.map((e) => [e.title, e.description].filter(Boolean).join(' — ')),
    ...stickers.map((st) => `[sticker: ${st.name ?? '?'}]`),
  ]
    .filter(Boolean)
    .join('\n');
}

/** An anti-nuke alert: what was detected, what was done (or the platform's refusal), how to undo the burst. */
function antinukeText(d: Record<string, unknown>): string {
  const detected = (d.detected ?? {}) as {
    kind?: string;
    count?: number;
    limit?: { count?: number; seconds?: number };
  };
  const entries = ((d.detected as { entries?: unknown[] } | undefined)?.entries ?? []).length;
  const lines = [
    `**Detected:** ${show(detected.count)} × ${show(detected.kind)} within ${show(detected.limit?.seconds)} s ` +
      `(limit ${show(detected.limit?.count)}; ${entries} audit entries in the burst)`,
  ];
  const failure = d.failure as { message?: string; code?: number } | null | undefined;
  if (d.response === 'timeout' && d.timeoutUntil) lines.push(`**Done:** timed out until ${show(d.timeoutUntil)}`);
  if (d.response === 'strip_roles' && !failure) lines.push(`**Done:** removed roles ${roleList(d.rolesRemoved)}`);
  if (Array.isArray(d.rolesKept) && d.rolesKept.length)
    lines.push(`**Could not remove** (above the bot or managed): ${roleList(d.rolesKept)}`);
  if (failure) lines.push(`**Failed:** ${clip(show(failure.message), 200)} (code ${show(failure.code)})`);
  lines.push('Undo the burst with the journal undo of this event.');
  return clip(lines.join('\n'), 900);
}

function describe(event: EventRow): string {
  const d = event.data;
  switch (event.kind) {
    case 'message_edit':
      return `**Before:** ${clip(show(d.before), 300)}\n**After:** ${clip(show(d.after), 300)}`;
    case 'message_delete':
      return clip(show(messageText(d)), 600);
    case 'message_bulk_delete':
      return `${show(d.count)} messages deleted`;
    case 'member_roles':
      return `Added: ${roleList(d.added)}\nRemoved: ${roleList(d.removed)}`;
    case 'member_nickname':
      return `${show(d.before)} → ${show(d.after)}`;
    case 'member_timeout':
      return d.until ? `Timed out until ${show(d.until)}` : 'Timeout lifted';
    case 'antinuke_response':
      return antinukeText(d);
    default: {
      const changes = d.changes as unknown;
      if (Array.isArray(changes) && changes.length && typeof changes[0] === 'string') {
        const before = (d.before ?? {}) as Record<string, unknown>;
        const after = (d.after ?? {}) as Record<string, unknown>;
        return clip(
          changes.map((k: string) => `**${k}:** ${clip(show(before[k]), 80)} → ${clip(show(after[k]), 80)}`).join('\n'),
          600,
        );
      }
      return '';
    }
  }
}

/** The log embed of a journal event (title = kind, actor/target/channel fields, reason, time, event id). */
export function eventEmbed(event: EventRow): APIEmbed {
  const fields = [{ name: 'Actor', value: clip(who(event.actor, event.actorName), 200), inline: true }];
  if (event.target)
    fields.push({
      name: 'Target',
      value: clip(`${event.targetName ?? ''} (${event.target})`.trim(), 200),
      inline: true,
    });
  if (event.channel) fields.push({ name: 'Channel', value: `<#${event.channel}>`, inline: true });
  if (typeof event.data.reason === 'string')
    fields.push({ name: 'Reason', value: clip(event.data.reason, 300), inline: false });
  const description = describe(event);
  return {
    title: event.kind.replace(/_/g, ' '),
    ...(description ? { description } : {}),
    color: CATEGORY_COLOR[KIND_CATEGORY[event.kind]],
    fields,
    footer: { text: `event ${event._id}${event.viaService ? ' · via Guildhall' : ''}` },
    timestamp: new Date(event.at).toISOString(),
  };
}

/** Characters of an embed that count toward the per-message limit. */
export function embedLength(embed: APIEmbed): number {
  let n = (embed.title ?? '').length + (embed.description ?? '').length + (embed.footer?.text ?? '').length;
  for (const f of embed.fields ?? []) n += f.name.length + f.value.length;
  return n;
}
