import { newSnowflake } from '@guildhall/shared';
import { type GatewayMessageCreateDispatchData, MessageType } from 'discord-api-types/v10';

/** What `messageCreate` needs: the channel and author; any other field of the dispatch overrides its default. */
export type MessageCreateInput = Partial<GatewayMessageCreateDispatchData> &
  Pick<GatewayMessageCreateDispatchData, 'channel_id' | 'author'>;

/**
 * A complete MESSAGE_CREATE dispatch payload (`d`, as the platform's gateway sends it) from a partial one: a default
 * message (`type` 0, empty `content`, no mentions, attachments or embeds, not edited, sent now) with a fresh
 * snowflake `id`, overridden field by field by `message`. `guild_id` and `member` are present only when given.
 */
export function messageCreate(message: MessageCreateInput): GatewayMessageCreateDispatchData {
  return {
    id: message.id ?? newSnowflake(),
    content: '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: MessageType.Default,
    ...message,
  };
}
