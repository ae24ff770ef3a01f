import type { Identity } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { journalPackChange } from './journalPackChange';
import { PackGuestModel, PackModel, packGuestId, SubscriptionModel } from './model';
import { packOfOwner } from './packAccess';

/**
 * The owner guild `owner` makes its pack `packId` private (listed to and subscribable by invited guilds only) or
 * public. Making it private first invites every guild subscribed to it (`pack_guests`), so they keep seeing it.
 * Journaled in the owner guild when the setting changed. 403 `pack_owner` / 404 see `packOfOwner`.
 */
export async function setPackPrivacy(
  ctx: CommunityContext,
  owner: string,
  packId: string,
  isPrivate: boolean,
  actor: Identity,
): Promise<void> {
  const pack = await packOfOwner(owner, packId);
  if (isPrivate) {
    const subs = await SubscriptionModel.find({ pack: packId, owner: false }, { guild: 1 }).lean();
    const now = new Date();
    if (subs.length)
      await PackGuestModel.bulkWrite(
        subs.map((s) => ({
          updateOne: {
            filter: { _id: packGuestId(packId, s.guild) },
            update: {
              $set: { invited: true, updatedAt: now },
              $setOnInsert: { pack: packId, guild: s.guild, owner, contribution: 'none' },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
  }
  const changed = await PackModel.updateOne({ _id: packId }, { $set: { private: isPrivate } });
  if (changed.modifiedCount && (pack.private ?? false) !== isPrivate)
    await journalPackChange(
      ctx,
      owner,
      null,
      packId,
      `Pack ${pack.name}: made ${isPrivate ? 'private (invited guilds only)' : 'public'}`,
      actor,
    );
}
