import type { Identity } from '@guildhall/shared';
import type { CommunityContext } from '../config';

/**
 * Emits `settings.updated` (area `pack`, `target` the pack id, `summary`, the caller as actor) in `guild` and, when
 * `peer` is another guild, the same change in `peer`, each naming the other guild as `peer`: the logs service then
 * journals a change between two guilds (consent, a contributor's items) in both.
 */
export async function journalPackChange(
  ctx: CommunityContext,
  guild: string,
  peer: string | null,
  packId: string,
  summary: string,
  actor: Identity,
): Promise<void> {
  const data = { area: 'pack' as const, target: packId, summary, actor: actor.sub, actorName: actor.name };
  if (!peer || peer === guild) {
    await ctx.outbox.emit(guild, 'settings.updated', data);
    return;
  }
  await ctx.outbox.emit(guild, 'settings.updated', { ...data, peer });
  await ctx.outbox.emit(peer, 'settings.updated', { ...data, peer: guild });
}
