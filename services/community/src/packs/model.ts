import {
  type CONTRIBUTION_STATES,
  type ITEM_KINDS,
  LEASE_HOLDER_INDEX,
  type Lease,
  leasePath,
} from '@guildhall/shared';
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

/**
 * A pack: a collection of items owned by guild `owner`; `items` is in the pack's order, each id at most once (an
 * addition is one write whose filter refuses ids already there). `private`: listed to and subscribable by invited
 * guilds only (absent on packs stored before it existed: public).
 */
export interface PackRow {
  _id: string;
  owner: string;
  name: string;
  items: PackItem[];
  private?: boolean;
  createdAt: Date;
}

export type Contribution = (typeof CONTRIBUTION_STATES)[number];

/**
 * The owner's consent for another guild `guild` on pack `pack` (owned by `owner`): `invited` (it lists and may
 * subscribe to the pack even when private) and its `contribution` right (see CONTRIBUTION_STATES). One row per pack
 * and guild (`_id` = `packGuestId`); `updatedAt`: the last change.
 */
export interface PackGuestRow {
  _id: string;
  pack: string;
  guild: string;
  owner: string;
  invited: boolean;
  contribution: Contribution;
  updatedAt: Date;
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
    private: { type: Boolean, default: false },
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
/** A pack job copying into the guild renews the subscription's lease by holder. */
subscriptionSchema.index(LEASE_HOLDER_INDEX);

const packGuestSchema = new Schema<PackGuestRow>(
  {
    _id: { type: String, required: true },
    pack: { type: String, required: true },
    guild: { type: String, required: true },
    owner: { type: String, required: true },
    invited: { type: Boolean, default: false },
    contribution: { type: String, default: 'none' },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'pack_guests' },
);
packGuestSchema.index({ pack: 1 });
packGuestSchema.index({ guild: 1, invited: 1 });

export const GuildItemModel =
  (mongoose.models.GuildItem as mongoose.Model<GuildItemRow>) ??
  mongoose.model<GuildItemRow>('GuildItem', guildItemSchema);
export const PackModel =
  (mongoose.models.Pack as mongoose.Model<PackRow>) ?? mongoose.model<PackRow>('Pack', packSchema);
export const SubscriptionModel =
  (mongoose.models.Subscription as mongoose.Model<SubscriptionRow>) ??
  mongoose.model<SubscriptionRow>('Subscription', subscriptionSchema);

export const PackGuestModel =
  (mongoose.models.PackGuest as mongoose.Model<PackGuestRow>) ??
  mongoose.model<PackGuestRow>('PackGuest', packGuestSchema);

/** Id of a subscription row. */
export const subscriptionId = (guild: string, pack: string) => `${guild}:${pack}`;

/** Id of a pack guest row (the owner's consent for `guild` on `pack`). */
export const packGuestId = (pack: string, guild: string) => `${pack}:${guild}`;
