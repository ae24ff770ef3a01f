import { type ITEM_KINDS, type Lease, leasePath } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

export type ItemKind = (typeof ITEM_KINDS)[number];

/**
 * An emoji or sticker present in a guild, mirrored from the platform (GUILD_CREATE, GUILD_EMOJIS_UPDATE,
 * GUILD_STICKERS_UPDATE dispatches and guild fetches). `format`: the platform's sticker format type (null for emoji).
 * `managed`: emoji managed by an integration (not counted in slots, never packed).
 */
export interface GuildItemRow {
  _id: string;
  guild: string;
  id: string;
  kind: ItemKind;
  name: string;
  animated: boolean;
  format: number | null;
  managed: boolean;
}

/** An item of a pack: the original item (`id`, in guild `guild`) with what is needed to copy it. */
export interface PackItem {
  id: string;
  guild: string;
  kind: ItemKind;
  name: string;
  animated: boolean;
  format: number | null;
}

/** A pack: a collection of items owned by guild `owner`; `items` is in the pack's order. */
export interface PackRow {
  _id: string;
  owner: string;
  name: string;
  items: PackItem[];
  createdAt: Date;
}

/** A copy of a pack item in a subscribed guild: `item` the original id, `id` the copy's platform id. */
export interface ItemCopy {
  item: string;
  id: string;
}

/**
 * A copy about to be created: the original item and when the creation started. Written before the platform call and
 * cleared with the copy's record, so a run that died in between finds the copy on the platform instead of copying twice.
 */
export interface PendingCopy {
  item: string;
  at: Date;
}

/**
 * A guild taking part in a pack. The owner guild's own row has `owner: true` (its items are the originals, no copies).
 * `position`: order of the guild's packs (1 = first). `contributes`: the guild may add its own items. `pending`: a
 * copy being created (see `PendingCopy`). `lease`: held by the pack job copying into this guild (one at a time).
 */
export interface SubscriptionRow {
  _id: string;
  guild: string;
  pack: string;
  owner: boolean;
  position: number;
  contributes: boolean;
  copies: ItemCopy[];
  pending?: PendingCopy | null;
  createdAt: Date;
  lease?: Lease | null;
}

const guildItemSchema = new Schema<GuildItemRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    id: { type: String, required: true },
    kind: { type: String, required: true },
    name: { type: String, required: true },
    animated: { type: Boolean, default: false },
    format: { type: Number, default: null },
    managed: { type: Boolean, default: false },
  },
  { versionKey: false, collection: 'guild_items' },
);
guildItemSchema.index({ guild: 1, kind: 1 });

const packSchema = new Schema<PackRow>(
  {
    _id: { type: String, required: true },
    owner: { type: String, required: true },
    name: { type: String, required: true },
    items: { type: Schema.Types.Mixed, default: [] },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'packs' },
);
packSchema.index({ owner: 1 });
packSchema.index({ createdAt: -1 });

const subscriptionSchema = new Schema<SubscriptionRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    pack: { type: String, required: true },
    owner: { type: Boolean, default: false },
    position: { type: Number, required: true },
    contributes: { type: Boolean, default: false },
    copies: { type: Schema.Types.Mixed, default: [] },
    pending: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
    lease: leasePath,
  },
  { versionKey: false, collection: 'pack_subscriptions' },
);
subscriptionSchema.index({ guild: 1, position: 1 });
subscriptionSchema.index({ pack: 1 });

export const GuildItemModel =
  (mongoose.models.GuildItem as mongoose.Model<GuildItemRow>) ??
  mongoose.model<GuildItemRow>('GuildItem', guildItemSchema);
export const PackModel =
  (mongoose.models.Pack as mongoose.Model<PackRow>) ?? mongoose.model<PackRow>('Pack', packSchema);
export const SubscriptionModel =
  (mongoose.models.Subscription as mongoose.Model<SubscriptionRow>) ??
  mongoose.model<SubscriptionRow>('Subscription', subscriptionSchema);

/** Id of a subscription row. */
export const subscriptionId = (guild: string, pack: string) => `${guild}:${pack}`;
