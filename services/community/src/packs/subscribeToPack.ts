import { badRequest, HttpProblem, type Identity } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { enqueueJob } from '../jobs/enqueueJob';
import { loadStructure } from '../structure/loadStructure';
import { journalPackChange } from './journalPackChange';
import {
  GuildItemModel,
  PackGuestModel,
  type PackRow,
  packGuestId,
  SubscriptionModel,
  type SubscriptionRow,
  subscriptionId,
} from './model';
import { packForGuest } from './packAccess';
import { guildSlots } from './slots';

/**
 * Records what `contributes` asks of the owner of `pack` (`pack_guests`): true turns a `none` or `revoked` right into
 * a `pending` request (a granted or pending one stays), false withdraws a pending request. Each write is conditional
 * on the state it changes, so two requests at once record one change. Journaled in both guilds when it changed.
 */
async function askToContribute(
  ctx: CommunityContext,
  guild: string,
  pack: PackRow,
  contributes: boolean,
  actor: Identity,
): Promise<void> {
  const _id = packGuestId(pack._id, guild);
  const updatedAt = new Date();
  if (contributes)
    await PackGuestModel.updateOne(
      { _id },
      {
        $setOnInsert: { pack: pack._id, guild, owner: pack.owner, invited: false, contribution: 'none', updatedAt },
      },
      { upsert: true },
    );
  const changed = contributes
    ? await PackGuestModel.updateOne(
        { _id, contribution: { $in: ['none', 'revoked'] } },
        { $set: { contribution: 'pending', updatedAt } },
      )
    : await PackGuestModel.updateOne({ _id, contribution: 'pending' }, { $set: { contribution: 'none', updatedAt } });
  if (changed.modifiedCount)
    await journalPackChange(
      ctx,
      guild,
      pack.owner,
      pack._id,
      `Pack ${pack.name} (guild ${pack.owner}): guild ${guild} ${contributes ? 'asks to contribute (pending until the owner approves)' : 'withdrew its request to contribute'}`,
      actor,
    );
}

/**
 * Subscribes `guild` to `pack` or, when already subscribed, changes `contributes`; either way queues a `pack.subscribe`
 * job copying the pack items the guild does not hold yet (copies whose platform item is gone are forgotten first, so
 * they are copied again) and returns its id. A new subscription first checks the free slots per kind: when they do not
 * suffice it throws 409 (`shortfall`: per kind needed and free) and creates nothing. `contributes: true` asks the owner
 * for the right to contribute (see `askToContribute`): the guild adds and orders items only once the owner granted it.
 * 404 unknown pack or a private pack the guild was not invited to (see `packForGuest`); 400 the guild owns the pack.
 * Emits `settings.updated` (area `pack`); the job emits another when it ends.
 */
export async function subscribeToPack(
  ctx: CommunityContext,
  guild: string,
  packId: string,
  contributes: boolean,
  actor: Identity,
): Promise<string> {
  const pack = await packForGuest(guild, packId);
  if (pack.owner === guild)
    throw badRequest('This guild owns the pack; it always takes part in it', [
      { field: 'params.pack', message: 'is owned by this guild' },
    ]);
  let sub = await SubscriptionModel.findById(subscriptionId(guild, packId)).lean<SubscriptionRow>();
  if (!sub) {
    const structure = await loadStructure(ctx, guild);
    const slots = await guildSlots(guild, structure.premiumTier);
    const shortfall = slots.flatMap((slot) => {
      const needed = pack.items.filter((i) => i.kind === slot.kind).length;
      const free = Math.max(0, slot.limit - slot.used);
      return needed > free ? [{ kind: slot.kind, needed, free }] : [];
    });
    if (shortfall.length)
      throw new HttpProblem(
        409,
        `Not enough free slots for pack ${pack.name}: ${shortfall.map((s) => `${s.kind} needs ${s.needed}, ${s.free} free`).join('; ')}. Nothing was copied.`,
        { shortfall },
      );
    const last = await SubscriptionModel.findOne({ guild }).sort({ position: -1 }).lean();
    sub = {
      _id: subscriptionId(guild, packId),
      guild,
      pack: packId,
      owner: false,
      position: (last?.position ?? 0) + 1,
      contributes,
      copies: [],
      createdAt: new Date(),
    };
    const { _id, ...insert } = sub;
    await SubscriptionModel.updateOne({ _id }, { $setOnInsert: insert }, { upsert: true });
  }
  await SubscriptionModel.updateOne({ _id: sub._id }, { $set: { contributes } });
  await askToContribute(ctx, guild, pack, contributes, actor);
  const present = new Set((await GuildItemModel.find({ guild }, { id: 1 }).lean()).map((i) => i.id));
  const stale = sub.copies.filter((c) => !present.has(c.id));
  if (stale.length) {
    await SubscriptionModel.updateOne({ _id: sub._id }, { $pull: { copies: { id: { $in: stale.map((c) => c.id) } } } });
    sub = { ...sub, copies: sub.copies.filter((c) => present.has(c.id)) };
  }
  const held = new Set(sub.copies.map((c) => c.item));
  const id = await enqueueJob(
    ctx,
    guild,
    {
      kind: 'pack.subscribe',
      pack: packId,
      targets: [guild],
      items: pack.items.filter((i) => !held.has(i.id)).map((i) => i.id),
    },
    actor,
  );
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'pack',
    target: packId,
    summary: `Pack ${pack.name}: subscribed${contributes ? ', contributes on (adding and ordering need the owner’s consent)' : ''}, copy job ${id} queued`,
    actor: actor.sub,
    actorName: actor.name,
  });
  return id;
}
