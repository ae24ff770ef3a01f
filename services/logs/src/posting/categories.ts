import type { JournalKind } from '@guildhall/shared';
import type { Category } from '../settings/model';

/** The log category (and so destination channel) of each journal kind. */
export const KIND_CATEGORY: Record<JournalKind, Category> = {
  message_edit: 'messages',
  message_delete: 'messages',
  message_bulk_delete: 'messages',
  member_join: 'members',
  member_leave: 'members',
  member_roles: 'members',
  member_nickname: 'members',
  verify: 'members',
  member_kick: 'moderation',
  member_ban: 'moderation',
  member_unban: 'moderation',
  member_timeout: 'moderation',
  member_prune: 'moderation',
  antinuke_response: 'moderation',
  bot_add: 'server',
  channel_create: 'server',
  channel_update: 'server',
  channel_delete: 'server',
  overwrite_update: 'server',
  role_create: 'server',
  role_update: 'server',
  role_delete: 'server',
  guild_update: 'server',
  webhook_create: 'server',
  webhook_delete: 'server',
  expression_create: 'server',
  expression_update: 'server',
  expression_delete: 'server',
  forum_status: 'server',
  settings_update: 'server',
};

/** Embed colour per category (RGB integers). */
export const CATEGORY_COLOR: Record<Category, number> = {
  messages: 0x3498db,
  members: 0x2ecc71,
  moderation: 0xe74c3c,
  server: 0x95a5a6,
};
