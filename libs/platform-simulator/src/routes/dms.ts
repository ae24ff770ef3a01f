import { type APIDMChannel, type APIMessage, ChannelType } from 'discord-api-types/v10';
import { ok, type RequestContext, type RouteTable } from '../context';
import { DiscordError } from '../errors';
import { messageFromBody } from '../posting';
import type { PlatformState } from '../state';

/** Discord's refusal of a DM: the user closed DMs from server members, or shares no guild with the bot. */
export const cannotMessageUser = () => new DiscordError(403, 50007, 'Cannot send messages to this user');

/** Whether the bot shares a guild with `userId` (Discord refuses DMs otherwise). */
function sharesGuild(state: PlatformState, userId: string): boolean {
  return [...state.guilds.values()].some((g) => g.members.has(userId));
}

/**
 * Sends a bot message into DM channel `dm` (called by the channel message route for DM channel ids): 50007 when
 * the recipient has closed DMs or shares no guild with the bot, as Discord answers.
 */
export function sendDirectMessage(ctx: RequestContext, dm: APIDMChannel): APIMessage {
  const recipient = dm.recipients![0]!.id;
  if (ctx.state.closedDms.has(recipient) || !sharesGuild(ctx.state, recipient)) throw cannotMessageUser();
  const message = messageFromBody(ctx, dm.id);
  const list = ctx.state.dmMessages.get(dm.id) ?? [];
  list.push(message);
  ctx.state.dmMessages.set(dm.id, list);
  dm.last_message_id = message.id;
  return message;
}

/** DM routes: `POST /users/@me/channels` opens (or returns the existing) DM channel with `recipient_id`. */
export const dmRoutes: RouteTable = {
  'POST /users/@me/channels': (ctx) => {
    const recipientId = String((ctx.body as { recipient_id?: string }).recipient_id ?? '');
    const user = ctx.state.users.get(recipientId);
    if (!user) throw new DiscordError(400, 50033, 'Invalid Recipient(s)');
    const existing = [...ctx.state.dmChannels.values()].find((c) => c.recipients?.[0]?.id === recipientId);
    if (existing) return ok(existing);
    const channel: APIDMChannel = {
      id: ctx.state.clock.snowflake(),
      type: ChannelType.DM,
      last_message_id: null,
      recipients: [user],
      name: null,
    };
    ctx.state.dmChannels.set(channel.id, channel);
    return ok(channel);
  },
};
