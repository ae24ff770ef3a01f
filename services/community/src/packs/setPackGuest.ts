import { badRequest, type Identity, type PackGuest } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { journalPackChange } from './journalPackChange';
import {
  type Contribution,
  PackGuestModel,
  type PackGuestRow,
  packGuestId,
  SubscriptionModel,
  type SubscriptionRow,
  subscriptionId,
} from './model';
import { packOfOwner } from './packAccess';
import { toPackGuest } from './packGuests';

/** The right that follows `before` when the owner sets `contributor` (false: granted -> revoked, pending -> none). */
function nextContribution(before: Contribution, contributor: boolean): Contribution {
  if (contributor) return 'granted';
  if (before === 'granted') return 'revoked';
  if (before === 'pending') return 'none';
  return before;
}

/** What the owner did, for the journal of both guilds (null when nothing changed). */
function describe(other: string, before: PackGuestRow | null, invited: boolean, next: Contribution): string | null {
  const was = before?.contribution ?? 'none';
  const parts: string[] = [];
  if (next !== was) {
    if (next === 'granted')
      parts.push(
        was === 'pending'
          ? `approved guild ${other}'s request to contribute`
          : `invited guild ${other} as a contributor`,
      );
    else if (next === 'revoked') parts.push(`revoked guild ${other}'s right to contribute`);
    else if (was === 'pending') parts.push(`declined guild ${other}'s request to contribute`);
  }
  if (invited !== (before?.invited ?? false))
    parts.push(invited ? `invited guild ${other}` : `withdrew guild ${other}'s invitation`);
  return parts.length ? parts.join('; ') : null;
}

/**
 * The owner guild `owner` sets the consent of guild `other` on its pack `packId` (`pack_guests`, one row per pack and
 * guild): `invited` (it lists and may subscribe to the pack even when private) and `contributor` (true: its right to
 * add and order items is `granted`, approving a pending request; false: a granted right becomes `revoked`, a pending
 * request is declined, and its subscription stops asking to contribute: `contributes` false). Answers the guest record. Journaled in both
 * guilds when something changed. 400 `other` is `owner`; 403 `pack_owner` / 404 see `packOfOwner`.
 */
export async function setPackGuest(
  ctx: CommunityContext,
  owner: string,
  packId: string,
  other: string,
  consent: { invited: boolean; contributor: boolean },
  actor: Identity,
): Promise<z.infer<typeof PackGuest>> {
  const pack = await packOfOwner(owner, packId);
  if (other === owner)
    throw badRequest('The owner guild always takes part in its pack', [
      { field: 'params.other', message: 'is the owner guild' },
    ]);
  const _id = packGuestId(packId, other);
  const before = await PackGuestModel.findById(_id).lean<PackGuestRow>();
  const contribution = nextContribution(before?.contribution ?? 'none', consent.contributor);
  const guest = await PackGuestModel.findOneAndUpdate(
    { _id },
    {
      $set: { invited: consent.invited, contribution, updatedAt: new Date() },
      $setOnInsert: { pack: packId, guild: other, owner },
    },
    { upsert: true, returnDocument: 'after' },
  ).lean<PackGuestRow>();
  if (!consent.contributor)
    await SubscriptionModel.updateOne({ _id: subscriptionId(other, packId) }, { $set: { contributes: false } });
  const summary = describe(other, before, consent.invited, contribution);
  if (summary)
    await journalPackChange(ctx, owner, other, packId, `Pack ${pack.name} (guild ${owner}): ${summary}`, actor);
  const sub = await SubscriptionModel.findById(subscriptionId(other, packId)).lean<SubscriptionRow>();
  return toPackGuest(other, guest, sub);
}
