import { type PlatformApi, platformFailure, postOnce } from '@guildhall/shared';
import type { APIEmbed } from 'discord-api-types/v10';
import { getDmSettings } from '../settings/dmSettings';
import { CaseModel, type CaseRow, historyEntry } from './model';

const ACTION_TEXT = { warn: 'warned', timeout: 'timed out', kick: 'kicked', ban: 'banned' } as const;
const COLORS = { warn: 0xf1c40f, timeout: 0xe67e22, kick: 0xe74c3c, ban: 0x992d22 } as const;

/** `3600` -> `1 hour`; `90061` -> `1 day 1 hour 1 minute 1 second`. */
export function describeDuration(seconds: number): string {
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
  }
  return parts.join(' ');
}

/** The DM embed telling the member about case `c` in guild `guildName`. */
export function caseDmEmbed(c: CaseRow, guildName: string, appealHint: string | null): APIEmbed {
  const fields = [
    { name: 'Case', value: `#${c.number}`, inline: true },
    { name: 'Action', value: c.action, inline: true },
  ];
  if (c.duration !== null) fields.push({ name: 'Duration', value: describeDuration(c.duration), inline: true });
  fields.push({ name: 'Reason', value: c.reason.slice(0, 1024), inline: false });
  fields.push({
    name: 'Appeal',
    value: (
      appealHint ??
      `You can appeal this case on the Guildhall dashboard (Appeals, server "${guildName}"), quoting case #${c.number}.`
    ).slice(0, 1024),
    inline: false,
  });
  return {
    title: `You were ${ACTION_TEXT[c.action]} in ${guildName}`.slice(0, 256),
    color: COLORS[c.action],
    fields,
    timestamp: c.createdAt.toISOString(),
  };
}

async function guildName(platform: PlatformApi, guild: string): Promise<string> {
  try {
    return (await platform.guilds.get(guild)).name;
  } catch {
    return 'the server';
  }
}

/**
 * Tells the member about case `c` in a DM when the guild's case DM settings have its action on (default: all four).
 * At most one attempt per case (a `dm` history entry marks it, so a resumed case is not DMed twice). The outcome is
 * recorded on the case: note `sent`, or note `refused` with the platform's refusal (e.g. 403 / 50007 when the member
 * closed DMs). Never throws: a DM never fails a case. The DM is posted once per case (`postOnce`), so a retry of a
 * post whose answer was lost, or a resumed case whose DM went out before the entry was stored, shows one message.
 */
export async function sendCaseDm(platform: PlatformApi, c: CaseRow): Promise<void> {
  if (c.history.some((h) => h.change === 'dm')) return;
  const settings = await getDmSettings(c.guild);
  if (!settings[c.action]) return;
  let entry = historyEntry('dm', { note: 'sent' });
  try {
    const channel = await platform.users.createDM(c.target);
    await platform.channels.createMessage(channel.id, {
      embeds: [caseDmEmbed(c, await guildName(platform, c.guild), settings.appealHint)],
      ...postOnce(`case-dm:${c._id}`),
    });
  } catch (err) {
    entry = historyEntry('dm', { note: 'refused', failure: platformFailure(err) });
  }
  await CaseModel.updateOne({ _id: c._id }, { $push: { history: entry } });
}
