import { HttpProblem, isDuplicateKey, isPlatformNotFound, notFound, platformProblem } from '@guildhall/shared';
import type { APIChannel, APIEmoji, APIGuild, APIGuildMember, APISticker } from 'discord-api-types/v10';
import type { CommunityContext } from '../config';
import { replaceGuildItems } from '../packs/guildItems';
import { AbsentGuildModel } from './absentGuildModel';
import { type PlatformChannel, THREAD_TYPES, toStoredChannel, toStoredRole } from './fromPlatform';
import { StructureModel, type StructureRow } from './model';

/**
 * The stored structure of `guild`, fetched from the platform (guild, channels, the bot's member) when missing or
 * older than `STRUCTURE_MAX_AGE_MS`. Throws 404 when the platform does not know the guild (or the bot is not in
 * it; remembered for `ABSENT_GUILD_MS`, so asking again costs no platform call until then or until the bot joins), 502 when the platform refuses otherwise and 503 (`bot_user_unknown`) while the bot's user id is not known yet,
 * when nothing is stored (a stale stored structure is served then).
 */
export async function loadStructure(ctx: CommunityContext, guild: string): Promise<StructureRow> {
  const stored = await StructureModel.findById(guild).lean<StructureRow>();
  if (stored && Date.now() - new Date(stored.fetchedAt).getTime() < ctx.config.STRUCTURE_MAX_AGE_MS) return stored;
  if (!stored && (await AbsentGuildModel.exists({ _id: guild, until: { $gt: new Date() } })))
    throw notFound(`Guild ${guild} is unknown to the platform or the bot is not in it`);
  try {
    return await fetchStructure(ctx, guild);
  } catch (err) {
    if (!stored && err instanceof HttpProblem && err.status === 404) await rememberAbsent(ctx, guild);
    if (!stored || (err instanceof HttpProblem && err.status === 404)) throw err;
    ctx.logger.warn({ err, guild }, 'refreshing the structure failed; serving the stored one');
    return stored;
  }
}

/** Remembers that the platform answered 404 for `guild` (see `AbsentGuildRow`) for `ABSENT_GUILD_MS`. */
async function rememberAbsent(ctx: CommunityContext, guild: string): Promise<void> {
  const until = new Date(Date.now() + ctx.config.ABSENT_GUILD_MS);
  await AbsentGuildModel.updateOne({ _id: guild }, { $set: { until } }, { upsert: true });
}

/** How often `fetchStructure` fetches again when dispatches changed the stored structure while it fetched. */
const FETCH_ATTEMPTS = 3;

/**
 * Fetches the guild's structure and items from the platform and stores them (replacing what was stored), unless a
 * dispatch (or another fetch) changed the stored structure or announced an item change (`markItemsChanging`) while
 * the platform answered: the fetched snapshot may predate that change, and storing it would undo a change no later
 * dispatch brings back. Then it fetches again (the platform's answer now includes the change), at most
 * `FETCH_ATTEMPTS` times, and after that returns the stored structure, which the dispatches keep current. The items
 * are written before the structure's conditional write, so an item dispatch applied after them either bumped the
 * revision first (the fetch goes again) or started after the fetch's answer was read. Throws as `loadStructure`.
 */
export async function fetchStructure(ctx: CommunityContext, guild: string): Promise<StructureRow> {
  for (let attempt = 1; attempt <= FETCH_ATTEMPTS; attempt++) {
    const before = await StructureModel.findById(guild, { botRoles: 1, rev: 1 }).lean<StoredRevision>();
    const platformGuild = await fetchSnapshot(ctx, guild);
    await replaceGuildItems(guild, 'emoji', platformGuild.emojis);
    await replaceGuildItems(guild, 'sticker', platformGuild.stickers);
    const doc = await storeFetchedSnapshot(guild, platformGuild.snapshot, before);
    if (doc) return doc;
  }
  const stored = await StructureModel.findById(guild).lean<StructureRow>();
  if (!stored) throw new Error(`structure of ${guild} kept changing while it was fetched`);
  return stored;
}

/** The guild, its channels and the bot's member as the platform answers now, with the guild's emojis and stickers. */
async function fetchSnapshot(
  ctx: CommunityContext,
  guild: string,
): Promise<{ snapshot: GuildSnapshot; emojis: APIEmoji[]; stickers: APISticker[] }> {
  let platformGuild: APIGuild;
  let channels: APIChannel[];
  let botMember: APIGuildMember;
  const bot = ctx.botUser.now();
  try {
    [platformGuild, channels, botMember] = (await Promise.all([
      ctx.platform.guilds.get(guild),
      ctx.platform.guilds.getChannels(guild),
      ctx.platform.guilds.getMember(guild, bot),
    ])) as [APIGuild, APIChannel[], APIGuildMember];
  } catch (err) {
    if (isPlatformNotFound(err)) throw notFound(`Guild ${guild} is unknown to the platform or the bot is not in it`);
    throw platformProblem(err, 'read the guild');
  }
  return {
    snapshot: {
      owner: platformGuild.owner_id,
      premiumTier: platformGuild.premium_tier,
      roles: platformGuild.roles,
      channels: channels as PlatformChannel[],
      botRoles: botMember.roles,
    },
    emojis: platformGuild.emojis as APIEmoji[],
    stickers: (platformGuild.stickers ?? []) as APISticker[],
  };
}

/** What a full snapshot of a guild carries (a platform fetch or a GUILD_CREATE dispatch). */
export interface GuildSnapshot {
  owner: string;
  premiumTier: number;
  roles: APIGuild['roles'];
  channels: PlatformChannel[];
  /** The bot's role ids; `null` keeps the stored ones. */
  botRoles: string[] | null;
}

/** The stored fields a snapshot write starts from: the revision and the bot's roles (`null`: nothing stored). */
type StoredRevision = Pick<StructureRow, 'botRoles' | 'rev'> | null;

/**
 * The stored structure of `guild` made from `snapshot` (threads are left out: they are posts, not structure), one
 * revision after `previous` and keeping its bot roles when the snapshot has none.
 */
function snapshotRow(guild: string, snapshot: GuildSnapshot, previous: StoredRevision): StructureRow {
  return {
    _id: guild,
    owner: snapshot.owner,
    premiumTier: snapshot.premiumTier,
    roles: snapshot.roles.map(toStoredRole),
    channels: snapshot.channels.filter((c) => !THREAD_TYPES.has(c.type)).map(toStoredChannel),
    botRoles: snapshot.botRoles ?? previous?.botRoles ?? [],
    fetchedAt: new Date(),
    rev: (previous?.rev ?? 0) + 1,
  };
}

/**
 * Replaces the stored structure of `guild` with the snapshot a dispatch carries (GUILD_CREATE, applied in stream
 * order, so unconditionally) and returns it; the guild is no longer remembered as absent.
 */
export async function storeGuildSnapshot(guild: string, snapshot: GuildSnapshot): Promise<StructureRow> {
  await AbsentGuildModel.deleteOne({ _id: guild });
  const previous = await StructureModel.findById(guild, { botRoles: 1, rev: 1 }).lean<StoredRevision>();
  const doc = snapshotRow(guild, snapshot, previous);
  await StructureModel.replaceOne({ _id: guild }, doc, { upsert: true });
  return doc;
}

/**
 * Stores the snapshot a platform fetch read, only if the stored structure is still `unchangedSince` (what was stored
 * when the fetch started; `null`: nothing), and returns it; returns `null` if something changed it meanwhile.
 */
async function storeFetchedSnapshot(
  guild: string,
  snapshot: GuildSnapshot,
  unchangedSince: StoredRevision,
): Promise<StructureRow | null> {
  const doc = snapshotRow(guild, snapshot, unchangedSince);
  if (unchangedSince) {
    const result = await StructureModel.replaceOne({ _id: guild, rev: unchangedSince.rev }, doc);
    return result.matchedCount === 1 ? doc : null;
  }
  try {
    await StructureModel.create(doc);
    return doc;
  } catch (err) {
    if (isDuplicateKey(err)) return null;
    throw err;
  }
}

/**
 * Bumps the stored structure's revision without changing it, before a dispatch writes the guild's items (emojis,
 * stickers): a platform fetch under way (`fetchStructure`) then stores nothing it read before, and fetches again.
 */
export async function markItemsChanging(guild: string): Promise<void> {
  await StructureModel.updateOne({ _id: guild }, { $inc: { rev: 1 } });
}

/**
 * Applies `change` to the stored structure of `guild` with optimistic concurrency (retried when another writer got
 * there first). Does nothing when no structure is stored (the next read fetches it whole). Returns the new document.
 */
export async function mutateStructure(
  guild: string,
  change: (doc: StructureRow) => void,
): Promise<StructureRow | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const doc = await StructureModel.findById(guild).lean<StructureRow>();
    if (!doc) return null;
    const rev = doc.rev;
    change(doc);
    const { _id, ...rest } = doc;
    const result = await StructureModel.updateOne({ _id: guild, rev }, { $set: { ...rest, rev: rev + 1 } });
    if (result.matchedCount === 1) return { ...doc, rev: rev + 1 };
  }
  throw new Error(`structure of ${guild} kept changing during an update`);
}

/** The bot's highest role position in the stored structure (0 when it holds only @everyone). */
export function botTop(doc: StructureRow): number {
  const held = new Set(doc.botRoles);
  return Math.max(0, ...doc.roles.filter((r) => held.has(r.id)).map((r) => r.position));
}
