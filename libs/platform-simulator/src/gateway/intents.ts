import { type APIMessage, GatewayIntentBits } from 'discord-api-types/v10';
import type { DispatchName } from './dispatch';

/** Every intent bit Discord defines; any other bit in IDENTIFY closes the connection with 4013. */
export const ALL_INTENTS = Object.values(GatewayIntentBits)
  .filter((bit): bit is number => typeof bit === 'number')
  .reduce((all, bit) => all | bit, 0);

/** The privileged intents; each needs the application's matching setting, else 4014. */
export const PRIVILEGED_INTENTS =
  GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildPresences | GatewayIntentBits.MessageContent;

/** The intent a guild dispatch needs (Discord's "list of intents"); 0 for dispatches every session gets. */
const INTENT_OF: Partial<Record<DispatchName, GatewayIntentBits>> = {
  GUILD_UPDATE: GatewayIntentBits.Guilds,
  GUILD_DELETE: GatewayIntentBits.Guilds,
  GUILD_ROLE_CREATE: GatewayIntentBits.Guilds,
  GUILD_ROLE_UPDATE: GatewayIntentBits.Guilds,
  GUILD_ROLE_DELETE: GatewayIntentBits.Guilds,
  CHANNEL_CREATE: GatewayIntentBits.Guilds,
  CHANNEL_UPDATE: GatewayIntentBits.Guilds,
  CHANNEL_DELETE: GatewayIntentBits.Guilds,
  CHANNEL_PINS_UPDATE: GatewayIntentBits.Guilds,
  THREAD_CREATE: GatewayIntentBits.Guilds,
  THREAD_UPDATE: GatewayIntentBits.Guilds,
  THREAD_DELETE: GatewayIntentBits.Guilds,
  THREAD_LIST_SYNC: GatewayIntentBits.Guilds,
  THREAD_MEMBER_UPDATE: GatewayIntentBits.Guilds,
  THREAD_MEMBERS_UPDATE: GatewayIntentBits.Guilds,
  GUILD_MEMBER_ADD: GatewayIntentBits.GuildMembers,
  GUILD_MEMBER_UPDATE: GatewayIntentBits.GuildMembers,
  GUILD_MEMBER_REMOVE: GatewayIntentBits.GuildMembers,
  GUILD_AUDIT_LOG_ENTRY_CREATE: GatewayIntentBits.GuildModeration,
  GUILD_BAN_ADD: GatewayIntentBits.GuildModeration,
  GUILD_BAN_REMOVE: GatewayIntentBits.GuildModeration,
  GUILD_EMOJIS_UPDATE: GatewayIntentBits.GuildExpressions,
  GUILD_STICKERS_UPDATE: GatewayIntentBits.GuildExpressions,
  WEBHOOKS_UPDATE: GatewayIntentBits.GuildWebhooks,
  INVITE_CREATE: GatewayIntentBits.GuildInvites,
  INVITE_DELETE: GatewayIntentBits.GuildInvites,
  VOICE_STATE_UPDATE: GatewayIntentBits.GuildVoiceStates,
  PRESENCE_UPDATE: GatewayIntentBits.GuildPresences,
  MESSAGE_CREATE: GatewayIntentBits.GuildMessages,
  MESSAGE_UPDATE: GatewayIntentBits.GuildMessages,
  MESSAGE_DELETE: GatewayIntentBits.GuildMessages,
  MESSAGE_DELETE_BULK: GatewayIntentBits.GuildMessages,
  MESSAGE_REACTION_ADD: GatewayIntentBits.GuildMessageReactions,
  MESSAGE_REACTION_REMOVE: GatewayIntentBits.GuildMessageReactions,
  MESSAGE_REACTION_REMOVE_ALL: GatewayIntentBits.GuildMessageReactions,
  MESSAGE_REACTION_REMOVE_EMOJI: GatewayIntentBits.GuildMessageReactions,
  TYPING_START: GatewayIntentBits.GuildMessageTyping,
  GUILD_SCHEDULED_EVENT_CREATE: GatewayIntentBits.GuildScheduledEvents,
  GUILD_SCHEDULED_EVENT_UPDATE: GatewayIntentBits.GuildScheduledEvents,
  GUILD_SCHEDULED_EVENT_DELETE: GatewayIntentBits.GuildScheduledEvents,
  AUTO_MODERATION_RULE_CREATE: GatewayIntentBits.AutoModerationConfiguration,
  AUTO_MODERATION_RULE_UPDATE: GatewayIntentBits.AutoModerationConfiguration,
  AUTO_MODERATION_RULE_DELETE: GatewayIntentBits.AutoModerationConfiguration,
  AUTO_MODERATION_ACTION_EXECUTION: GatewayIntentBits.AutoModerationExecution,
};

/** Whether a session identified with `intents` receives the guild dispatch `t`. */
export function receives(intents: number, t: DispatchName): boolean {
  const needed = INTENT_OF[t] ?? 0;
  return (intents & needed) === needed;
}

/**
 * A MESSAGE_CREATE / MESSAGE_UPDATE as a session without MESSAGE_CONTENT sees it: `content`, `embeds`,
 * `attachments`, `components` and `poll` emptied, except for the bot's own messages and messages mentioning it.
 */
export function withoutContent<M extends Partial<APIMessage>>(message: M, botUserId: string): M {
  if (message.author?.id === botUserId || message.mentions?.some((u) => u.id === botUserId)) return message;
  const { poll: _poll, ...rest } = message;
  return { ...rest, content: '', embeds: [], attachments: [], components: [] } as unknown as M;
}
