import type { Stoppable } from '@guildhall/shared';
import type { APIEmoji, APISticker } from 'discord-api-types/v10';
import { forgetMember } from './access/memberCache';
import type { Ctx } from './config';
import { replaceGuildItems } from './packs/guildItems';
import { applyPostDispatch, POST_DISPATCHES } from './posts/applyPostDispatch';
import { applyStructureDispatch, type Dispatch, STRUCTURE_DISPATCHES } from './structure/applyStructureDispatch';

const ITEM_DISPATCHES = ['GUILD_CREATE', 'GUILD_EMOJIS_UPDATE', 'GUILD_STICKERS_UPDATE'] as const;
const MEMBER_DISPATCHES = ['GUILD_MEMBER_ADD', 'GUILD_MEMBER_UPDATE', 'GUILD_MEMBER_REMOVE'] as const;

const subjects = (events: readonly string[]) => events.map((e) => `platform.dispatch.${e}`);

async function applyItemDispatch(dispatch: Dispatch): Promise<void> {
  const d = dispatch.d;
  const guild = (dispatch.t === 'GUILD_CREATE' ? d.id : d.guild_id) as string | undefined;
  if (!guild || d.unavailable) return;
  if (Array.isArray(d.emojis)) await replaceGuildItems(guild, 'emoji', d.emojis as APIEmoji[]);
  if (Array.isArray(d.stickers)) await replaceGuildItems(guild, 'sticker', d.stickers as APISticker[]);
}

/**
 * What community reacts to, all from the PLATFORM stream (durable consumers, in order, idempotent handlers):
 * - `community-structure`: guild, role, channel and the bot's member dispatches -> stored structure;
 * - `community-posts`: thread and reaction dispatches -> forum posts and votes;
 * - `community-items`: emoji and sticker dispatches -> the guild's items.
 * Plus a plain (per replica) subscription on member dispatches that drops this replica's cached member for
 * RPC.access, so every replica forgets it.
 */
export async function startConsumers(ctx: Ctx): Promise<Stoppable[]> {
  const stops = await Promise.all([
    ctx.bus.consume<Dispatch>(
      { stream: 'PLATFORM', durable: 'community-structure', filterSubjects: subjects(STRUCTURE_DISPATCHES) },
      (msg) => applyStructureDispatch(ctx, msg.data),
    ),
    ctx.bus.consume<Dispatch>(
      { stream: 'PLATFORM', durable: 'community-posts', filterSubjects: subjects(POST_DISPATCHES) },
      (msg) => applyPostDispatch(ctx, msg.data),
    ),
    ctx.bus.consume<Dispatch>(
      { stream: 'PLATFORM', durable: 'community-items', filterSubjects: subjects(ITEM_DISPATCHES) },
      (msg) => applyItemDispatch(msg.data),
    ),
  ]);
  const decoder = new TextDecoder();
  const members = subjects(MEMBER_DISPATCHES).map((subject) =>
    ctx.bus.nc.subscribe(ctx.bus.subject(subject), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { d } = JSON.parse(decoder.decode(msg.data)) as Dispatch;
          const user = d.user as { id?: string } | undefined;
          if (typeof d.guild_id === 'string' && user?.id) forgetMember(d.guild_id, user.id);
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
