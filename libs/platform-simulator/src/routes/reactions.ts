import { type APIMessage, ReactionType } from 'discord-api-types/v10';
import { noContent, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';
import type { FakeGuildState } from '../types';

/** The emoji of a reaction route's `{emoji_name}`: a unicode emoji, or `name:id` for a custom one. */
function emojiOf(raw: string): { id: string | null; name: string } {
  const [name, id] = raw.split(':');
  return { id: id ?? null, name };
}

function target(ctx: RequestContext): { guild: FakeGuildState; message: APIMessage } {
  const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
  return { guild, message: ctx.state.message(guild, channel.id, ctx.params.message_id) };
}

/** Adjusts the message's `reactions` counts by `delta` for the acting user. */
function count(message: APIMessage, emoji: { id: string | null; name: string }, delta: 1 | -1, mine: boolean) {
  const reactions = message.reactions ?? [];
  let reaction = reactions.find((r) => r.emoji.id === emoji.id && r.emoji.name === emoji.name);
  if (!reaction) {
    reaction = {
      emoji,
      count: 0,
      count_details: { burst: 0, normal: 0 },
      me: false,
      me_burst: false,
      burst_colors: [],
    };
    reactions.push(reaction);
  }
  reaction.count += delta;
  reaction.count_details.normal += delta;
  if (mine) reaction.me = delta > 0;
  message.reactions = reactions.filter((r) => r.count > 0);
}

/**
 * Own reactions (add / remove with `@me`): the message's `reactions` counts and MESSAGE_REACTION_ADD (with the
 * reacting `member`) / MESSAGE_REACTION_REMOVE, by the acting user (the bot or an `actAsUser` member).
 */
export const reactionRoutes: RouteTable = {
  'PUT /channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me': (ctx) => {
    const { guild, message } = target(ctx);
    const emoji = emojiOf(ctx.params.emoji_name);
    if (emoji.id && !guild.emojis.has(emoji.id)) throw errors.unknownEmoji();
    count(message, emoji, 1, ctx.actor.id === ctx.state.botUser.id);
    ctx.state.emit(guild.id, 'MESSAGE_REACTION_ADD', {
      user_id: ctx.actor.id,
      channel_id: message.channel_id,
      message_id: message.id,
      guild_id: guild.id,
      member: guild.members.get(ctx.actor.id),
      emoji,
      message_author_id: message.author.id,
      burst: false,
      type: ReactionType.Normal,
    } as never);
    return noContent();
  },

  'DELETE /channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me': (ctx) => {
    const { guild, message } = target(ctx);
    const emoji = emojiOf(ctx.params.emoji_name);
    count(message, emoji, -1, ctx.actor.id === ctx.state.botUser.id);
    ctx.state.emit(guild.id, 'MESSAGE_REACTION_REMOVE', {
      user_id: ctx.actor.id,
      channel_id: message.channel_id,
      message_id: message.id,
      guild_id: guild.id,
      emoji,
      burst: false,
      type: ReactionType.Normal,
    });
    return noContent();
  },
};
