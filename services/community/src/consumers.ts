import {
  broadcastInvalidation,
  type Dispatch,
  dispatchConsumer,
  onDispatches,
  type Stoppable,
} from '@guildhall/shared';
import { forgetMember } from './access/memberCache';
import type { CommunityContext } from './config';
import { replaceGuildItems } from './packs/guildItems';
import { applyPostDispatch, POST_DISPATCHES } from './posts/applyPostDispatch';
import { applyStructureDispatch, STRUCTURE_DISPATCHES } from './structure/applyStructureDispatch';
import { markItemsChanging } from './structure/loadStructure';

const ITEM_DISPATCHES = ['GUILD_CREATE', 'GUILD_EMOJIS_UPDATE', 'GUILD_STICKERS_UPDATE'] as const;
const MEMBER_DISPATCHES = ['GUILD_MEMBER_ADD', 'GUILD_MEMBER_UPDATE', 'GUILD_MEMBER_REMOVE'] as const;
/**
 * Structure dispatches that can change anyone's access answer (owner, role permissions). Not GUILD_CREATE: it arrives
 * for every guild when the bot connects, and what changed meanwhile reaches the gateways within `ACCESS_CACHE_MS`.
 */
const ACCESS_DISPATCHES = new Set(['GUILD_UPDATE', 'GUILD_ROLE_UPDATE', 'GUILD_ROLE_DELETE']);

/** Stores a structure dispatch, then drops the gateway replicas' cached access answers of a changed guild. */
async function applyStructure(ctx: CommunityContext, dispatch: Dispatch<(typeof STRUCTURE_DISPATCHES)[number]>) {
  await applyStructureDispatch(ctx, dispatch);
  if (!ACCESS_DISPATCHES.has(dispatch.t)) return;
  const guild = 'guild_id' in dispatch.d ? dispatch.d.guild_id : dispatch.d.id;
  broadcastInvalidation(ctx.bus, 'access', [`${guild}:*`]);
}

/** Stores a guild's items from a dispatch, first making a platform fetch under way go again (`markItemsChanging`). */
async function applyItemDispatch(dispatch: Dispatch<(typeof ITEM_DISPATCHES)[number]>): Promise<void> {
  if (dispatch.t === 'GUILD_CREATE' && dispatch.d.unavailable) return;
  await markItemsChanging(dispatch.t === 'GUILD_CREATE' ? dispatch.d.id : dispatch.d.guild_id);
  if (dispatch.t === 'GUILD_CREATE') {
    await replaceGuildItems(dispatch.d.id, 'emoji', dispatch.d.emojis);
    if (dispatch.d.stickers) await replaceGuildItems(dispatch.d.id, 'sticker', dispatch.d.stickers);
  } else if (dispatch.t === 'GUILD_EMOJIS_UPDATE') {
    await replaceGuildItems(dispatch.d.guild_id, 'emoji', dispatch.d.emojis);
  } else await replaceGuildItems(dispatch.d.guild_id, 'sticker', dispatch.d.stickers);
}

/**
 * What community reacts to, all from the PLATFORM stream (durable consumers, in order, idempotent handlers):
 * - `community-structure`: guild, role, channel and the bot's member dispatches -> stored structure;
 * - `community-posts`: thread and reaction dispatches -> forum posts and votes;
 * - `community-items`: emoji and sticker dispatches -> the guild's items.
 * Plus a plain (per replica) subscription on member dispatches that drops this replica's cached member for
 * RPC.access, so every replica forgets it, and then tells every gateway replica to drop its access answer for that
 * member (`cache.invalidate.access`; each community replica does, after its own drop, so no gateway replica keeps an
 * answer computed from a stale member). Guild and role dispatches drop the guild's access answers once stored.
 */
export async function startConsumers(ctx: CommunityContext): Promise<Stoppable[]> {
  const stops = await Promise.all([
    ctx.bus.consume(dispatchConsumer('community-structure', STRUCTURE_DISPATCHES), (msg) =>
      applyStructure(ctx, msg.data),
    ),
    ctx.bus.consume(dispatchConsumer('community-posts', POST_DISPATCHES), (msg) => applyPostDispatch(ctx, msg.data)),
    ctx.bus.consume(dispatchConsumer('community-items', ITEM_DISPATCHES), (msg) => applyItemDispatch(msg.data)),
  ]);
  const members = onDispatches(
    ctx.bus,
    MEMBER_DISPATCHES,
    ({ d }) => {
      forgetMember(d.guild_id, d.user.id);
      broadcastInvalidation(ctx.bus, 'access', [`${d.guild_id}:${d.user.id}`]);
    },
    ctx.logger,
  );
  return [...stops.map((stop) => ({ stop })), members];
}
