import { assertHierarchy, conflict, MAX_BLACKLIST } from '@guildhall/shared';
import type { TicketsContext } from '../config';
import type { Actor } from './actor';
import { defaultSettings } from './loadSettings';
import { SettingsModel, type SettingsRow } from './model';
import { publishSettingsChanges } from './publishChanges';

/**
 * Whether `actor` may blacklist each of `members` (user ids) in `guild`, by the platform's role hierarchy
 * (`assertHierarchy`, community's `RPC.hierarchy`, asked for every member at once): throws 403 `code: self` when the
 * actor names themselves, 403 `code: hierarchy` (naming whose role is too low) when a member is the guild owner or
 * holds a role as high as the actor's or the bot's, 503 `code: peer_unavailable` when community does not answer within
 * `PEER_TIMEOUT_MS`. A user who is not a member has no roles (only the self and owner rules apply).
 */
export async function assertMayBlacklist(
  ctx: TicketsContext,
  guild: string,
  actor: Actor,
  members: string[],
): Promise<void> {
  await Promise.all(
    members.map((member) =>
      assertHierarchy(ctx.bus, { guild, actor: actor.id, target: member }, ctx.config.PEER_TIMEOUT_MS),
    ),
  );
}

/**
 * Adds `member` to the guild's ticket blacklist with one `$addToSet` (creating the settings row from the defaults
 * when missing), so that concurrent changes of other entries are kept. A listed member stays listed once. First the
 * role hierarchy (`assertMayBlacklist`: 403 `self` / `hierarchy`, 503 `peer_unavailable`; nothing stored then).
 * 409 when the list already holds `MAX_BLACKLIST` members. Publishes `settings.updated` when the list changed.
 */
export async function blacklistMember(ctx: TicketsContext, guild: string, member: string, actor: Actor): Promise<void> {
  await assertMayBlacklist(ctx, guild, actor, [member]);
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
