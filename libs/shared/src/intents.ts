import { GatewayIntentBits } from 'discord-api-types/v10';

/**
 * Gateway intents the bridge asks for by default: guild structure, members (privileged), moderation (bans and
 * audit-log entries), guild messages with their content (privileged), expressions (emojis, stickers) and message
 * reactions (forum votes). The bot's application must have the two privileged intents enabled.
 */
export const BRIDGE_INTENTS: number =
  GatewayIntentBits.Guilds |
  GatewayIntentBits.GuildMembers |
  GatewayIntentBits.GuildModeration |
  GatewayIntentBits.GuildMessages |
  GatewayIntentBits.MessageContent |
  GatewayIntentBits.GuildExpressions |
  GatewayIntentBits.GuildMessageReactions;
