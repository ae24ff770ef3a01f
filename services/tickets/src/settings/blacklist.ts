import { conflict, MAX_BLACKLIST } from '@guildhall/shared';
import type { TicketsContext } from '../config';
import type { Actor } from './actor';
import { defaultSettings } from './loadSettings';
import { SettingsModel, type SettingsRow } from './model';
import { publishSettingsChanges } from './publishChanges';

/**
 * Adds `member` to the guild's ticket blacklist with one `$addToSet` (creating the settings row from the defaults
 * when missing), so that concurrent changes of other entries are kept. A listed member stays listed once. 409 when
 * the list already holds `MAX_BLACKLIST` members. Publishes `settings.updated` when the list changed.
 */
export async function blacklistMember(ctx: TicketsContext, guild: string, member: string, actor: Actor): Promise<void> {
  const { _id, ...defaults } = defaultSettings(guild);
  await SettingsModel.updateOne({ _id }, { $setOnInsert: defaults }, { upsert: true });
  const before = await SettingsModel.findOneAndUpdate(
    { _id, $or: [{ blacklist: member }, { [`blacklist.${MAX_BLACKLIST - 1}`]: { $exists: false } }] },
    { $addToSet: { blacklist: member } },
    { returnDocument: 'before' },
  ).lean<SettingsRow>();
  if (!before) throw conflict(`The ticket blacklist holds at most ${MAX_BLACKLIST} members`);
  const after = before.blacklist.includes(member) ? before : { ...before, blacklist: [...before.blacklist, member] };
  await publishSettingsChanges(ctx, guild, before, after, ['blacklist'], actor);
}

/**
 * Removes `member` from the guild's ticket blacklist with one `$pull`, so that concurrent changes of other entries
 * are kept (nothing happens when the member is not listed). Publishes `settings.updated` when the list changed.
 */
export async function unblacklistMember(
  ctx: TicketsContext,
  guild: string,
  member: string,
  actor: Actor,
): Promise<void> {
  const before = await SettingsModel.findOneAndUpdate(
    { _id: guild },
    { $pull: { blacklist: member } },
    { returnDocument: 'before' },
  ).lean<SettingsRow>();
  if (!before) return;
  const after = { ...before, blacklist: before.blacklist.filter((id) => id !== member) };
  await publishSettingsChanges(ctx, guild, before, after, ['blacklist'], actor);
}
