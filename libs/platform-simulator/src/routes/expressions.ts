import {
  type APIEmoji,
  type APISticker,
  AuditLogEvent,
  PermissionFlagsBits,
  StickerFormatType,
  StickerType,
} from 'discord-api-types/v10';
import { noContent, ok, type RequestContext, type RouteTable } from '../context';
import { DiscordError, errors } from '../errors';
import type { FakeGuildState } from '../types';
import { type AuditedChange, announceChange } from './changed';

/** Emoji slots per premium tier (static and animated each). */
export const EMOJI_SLOTS = [50, 100, 150, 250];
/** Sticker slots per premium tier. */
export const STICKER_SLOTS = [5, 15, 30, 60];

const EMOJI_KEYS = ['name', 'roles'];
const STICKER_KEYS = ['name', 'tags', 'description', 'format_type'];

const DATA_URI = /^data:image\/(png|jpeg|jpg|gif|webp|avif);base64,[A-Za-z0-9+/=]+$/;

const STICKER_FORMATS: Record<string, StickerFormatType> = {
  'image/png': StickerFormatType.PNG,
  'image/apng': StickerFormatType.APNG,
  'application/json': StickerFormatType.Lottie,
  'image/gif': StickerFormatType.GIF,
};

function canManageExpressions(ctx: RequestContext, guild: FakeGuildState): void {
  const perms = ctx.state.permissions(guild, ctx.actor.id);
  const manage = PermissionFlagsBits.ManageGuildExpressions;
  const create = PermissionFlagsBits.CreateGuildExpressions;
  if ((perms & manage) !== manage && (perms & create) !== create) throw errors.missingPermissions();
}

function emoji(ctx: RequestContext): { guild: FakeGuildState; emoji: APIEmoji } {
  const guild = ctx.state.guild(ctx.params.guild_id);
  const found = guild.emojis.get(ctx.params.emoji_id);
  if (!found) throw errors.unknownEmoji();
  return { guild, emoji: found };
}

function sticker(ctx: RequestContext): { guild: FakeGuildState; sticker: APISticker } {
  const guild = ctx.state.guild(ctx.params.guild_id);
  const found = guild.stickers.get(ctx.params.sticker_id);
  if (!found) throw errors.unknownSticker();
  return { guild, sticker: found };
}

/** GUILD_EMOJIS_UPDATE (the guild's whole emoji list) and the emoji's audit entry (60-62) with its changes. */
function emojisChanged(ctx: RequestContext, guild: FakeGuildState, change: Omit<AuditedChange, 'keys'>): void {
  const emojis = [...guild.emojis.values()];
  announceChange(ctx, guild, 'GUILD_EMOJIS_UPDATE', { guild_id: guild.id, emojis }, { ...change, keys: EMOJI_KEYS });
}

/** GUILD_STICKERS_UPDATE (the guild's whole sticker list) and the sticker's audit entry (90-92) with its changes. */
function stickersChanged(ctx: RequestContext, guild: FakeGuildState, change: Omit<AuditedChange, 'keys'>): void {
  const stickers = [...guild.stickers.values()];
  announceChange(
    ctx,
    guild,
    'GUILD_STICKERS_UPDATE',
    { guild_id: guild.id, stickers },
    { ...change, keys: STICKER_KEYS },
  );
}

/**
 * Emoji and sticker routes. Creating one beyond the guild's premium-tier slots answers 400 30008
 * ("Maximum number of emojis reached (N)") or 30039 ("Maximum number of stickers reached (N)").
 */
export const expressionRoutes: RouteTable = {
  'GET /guilds/{guild_id}/emojis': (ctx) => ok([...ctx.state.guild(ctx.params.guild_id).emojis.values()]),
  'GET /guilds/{guild_id}/emojis/{emoji_id}': (ctx) => ok(emoji(ctx).emoji),

  'POST /guilds/{guild_id}/emojis': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    canManageExpressions(ctx, guild);
    const body = ctx.body as { name: string; image: string; roles?: string[] | null };
    const image = DATA_URI.exec(body.image);
    if (!image) throw errors.invalidField('image', 'BINARY_TYPE_INVALID_IMAGE', 'Invalid image data');
    const animated = image[1] === 'gif';
    const slots = EMOJI_SLOTS[guild.premium_tier] ?? EMOJI_SLOTS[0];
    const used = [...guild.emojis.values()].filter((e) => !e.managed && !!e.animated === animated).length;
    if (used >= slots) throw new DiscordError(400, 30008, `Maximum number of emojis reached (${slots})`);
    const created: APIEmoji = {
      id: ctx.state.clock.snowflake(),
      name: body.name,
      animated,
      roles: body.roles ?? [],
      user: ctx.actor,
      require_colons: true,
      managed: false,
      available: true,
    };
    guild.emojis.set(created.id!, created);
    emojisChanged(ctx, guild, { action: AuditLogEvent.EmojiCreate, target: created.id!, after: created });
    return ok(created);
  },

  'PATCH /guilds/{guild_id}/emojis/{emoji_id}': (ctx) => {
    const { guild, emoji: found } = emoji(ctx);
    canManageExpressions(ctx, guild);
    const body = ctx.body as { name?: string; roles?: string[] | null };
    const before = structuredClone(found);
    if (body.name !== undefined) found.name = body.name;
    if (body.roles !== undefined) found.roles = body.roles ?? [];
    emojisChanged(ctx, guild, { action: AuditLogEvent.EmojiUpdate, target: found.id!, before, after: found });
    return ok(found);
  },

  'DELETE /guilds/{guild_id}/emojis/{emoji_id}': (ctx) => {
    const { guild, emoji: found } = emoji(ctx);
    canManageExpressions(ctx, guild);
    guild.emojis.delete(found.id!);
    emojisChanged(ctx, guild, { action: AuditLogEvent.EmojiDelete, target: found.id!, before: found });
    return noContent();
  },

  'GET /guilds/{guild_id}/stickers': (ctx) => ok([...ctx.state.guild(ctx.params.guild_id).stickers.values()]),
  'GET /guilds/{guild_id}/stickers/{sticker_id}': (ctx) => ok(sticker(ctx).sticker),

  'POST /guilds/{guild_id}/stickers': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    canManageExpressions(ctx, guild);
    const file = ctx.files.find((f) => f.field === 'file');
    if (!file) throw errors.invalidField('file', 'BASE_TYPE_REQUIRED', 'This field is required');
    const format = STICKER_FORMATS[file.contentType];
    if (!format) throw new DiscordError(400, 50046, 'Invalid asset');
    const slots = STICKER_SLOTS[guild.premium_tier] ?? STICKER_SLOTS[0];
    if (guild.stickers.size >= slots)
      throw new DiscordError(400, 30039, `Maximum number of stickers reached (${slots})`);
    const body = ctx.body as { name: string; tags: string; description?: string };
    const created: APISticker = {
      id: ctx.state.clock.snowflake(),
      name: body.name,
      tags: body.tags,
      description: body.description ?? null,
      type: StickerType.Guild,
      format_type: format,
      available: true,
      guild_id: guild.id,
      user: ctx.actor,
    };
    guild.stickers.set(created.id, created);
    stickersChanged(ctx, guild, { action: AuditLogEvent.StickerCreate, target: created.id, after: created });
    return ok(created);
  },

  'PATCH /guilds/{guild_id}/stickers/{sticker_id}': (ctx) => {
    const { guild, sticker: found } = sticker(ctx);
    canManageExpressions(ctx, guild);
    const body = ctx.body as { name?: string; tags?: string; description?: string | null };
    const before = structuredClone(found);
    if (body.name !== undefined) found.name = body.name;
    if (body.tags !== undefined) found.tags = body.tags;
    if (body.description !== undefined) found.description = body.description;
    stickersChanged(ctx, guild, {
      action: AuditLogEvent.StickerUpdate,
      target: found.id,
      before,
      after: found,
    });
    return ok(found);
  },

  'DELETE /guilds/{guild_id}/stickers/{sticker_id}': (ctx) => {
    const { guild, sticker: found } = sticker(ctx);
    canManageExpressions(ctx, guild);
    guild.stickers.delete(found.id);
    stickersChanged(ctx, guild, { action: AuditLogEvent.StickerDelete, target: found.id, before: found });
    return noContent();
  },
};
