import { type Dispatch, dispatchConsumer, dispatchSubjects, parseDispatch, type Stoppable } from '@guildhall/shared';
import { forgetMember } from './access/memberCache';
import type { CommunityContext } from './config';
import { replaceGuildItems } from './packs/guildItems';
import { applyPostDispatch, POST_DISPATCHES } from './posts/applyPostDispatch';
import { applyStructureDispatch, STRUCTURE_DISPATCHES } from './structure/applyStructureDispatch';

const ITEM_DISPATCHES = ['GUILD_CREATE', 'GUILD_EMOJIS_UPDATE', 'GUILD_STICKERS_UPDATE'] as const;
const MEMBER_DISPATCHES = ['GUILD_MEMBER_ADD', 'GUILD_MEMBER_UPDATE', 'GUILD_MEMBER_REMOVE'] as const;

async function applyItemDispatch(dispatch: Dispatch<(typeof ITEM_DISPATCHES)[number]>): Promise<void> {
  if (dispatch.t === 'GUILD_CREATE') {
    if (dispatch.d.unavailable) return;
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
 * RPC.access, so every replica forgets it.
 */
export async function startConsumers(ctx: CommunityContext): Promise<Stoppable[]> {
  const stops = await Promise.all([
    ctx.bus.consume(dispatchConsumer('community-structure', STRUCTURE_DISPATCHES), (msg) =>
      applyStructureDispatch(ctx, msg.data),
    ),
    ctx.bus.consume(dispatchConsumer('community-posts', POST_DISPATCHES), (msg) => applyPostDispatch(ctx, msg.data)),
    ctx.bus.consume(dispatchConsumer('community-items', ITEM_DISPATCHES), (msg) => applyItemDispatch(msg.data)),
  ]);
  const members = dispatchSubjects(MEMBER_DISPATCHES).map((subject) =>
    ctx.bus.nc.subscribe(ctx.bus.subject(subject), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { d } = parseDispatch(MEMBER_DISPATCHES, msg.json(), subject);
          forgetMember(d.guild_id, d.user.id);
        } catch (parseErr) {
          ctx.logger.warn({ err: parseErr }, 'unreadable member dispatch');
        }
      },
    }),
  );
  return [
    ...stops.map((stop) => ({ stop })),
    {
      async stop() {
        for (const sub of members) sub.unsubscribe();
      },
    },
  ];
}
