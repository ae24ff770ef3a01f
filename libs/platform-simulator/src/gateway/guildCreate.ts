import {
  type APIGuildMember,
  type GatewayGuildCreateDispatchData,
  type GatewayGuildMembersChunkDispatchData,
  GatewayIntentBits,
  type GatewayRequestGuildMembersData,
} from 'discord-api-types/v10';
import { guildObject } from '../routes/guilds';
import { isThread, type PlatformState } from '../state';
import type { FakeGuildState } from '../types';

/** Members per GUILD_MEMBERS_CHUNK, as Discord sends them. */
export const CHUNK_SIZE = 1000;

/**
 * The GUILD_CREATE a session receives for `guild`: the guild object with its channels, active threads and
 * `member_count`, and the member list Discord sends: every member only with GUILD_PRESENCES for a guild that is not
 * large (`member_count` above the session's `large_threshold`); otherwise the bot itself and members in voice
 * channels (the simulator models no voice states, so only the bot). Presences are empty: nobody is online.
 */
export function guildCreateData(
  state: PlatformState,
  guild: FakeGuildState,
  intents: number,
  largeThreshold: number,
): GatewayGuildCreateDispatchData {
  const { large, members } = gatewayMemberList([...guild.members.values()], state.botUser.id, intents, largeThreshold);
  const channels = [...guild.channels.values()];
  return {
    ...guildObject(guild),
    joined_at: guild.members.get(state.botUser.id)?.joined_at ?? state.clock.iso(),
    large,
    unavailable: false,
    member_count: guild.members.size,
    voice_states: [],
    members,
    channels: channels.filter((c) => !isThread(c)),
    threads: channels.filter((c) => isThread(c) && !c.thread_metadata?.archived),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  } as unknown as GatewayGuildCreateDispatchData;
}

/**
 * GUILD_CREATE's `large` flag and member list, by Discord's rules: a guild is large when it has more members than
 * the session's `large_threshold` (50 to 250); all members come only with GUILD_PRESENCES and a guild that is not
 * large, otherwise just the bot (and members in voice channels, which the simulator does not model).
 */
export function gatewayMemberList(
  members: APIGuildMember[],
  botUserId: string,
  intents: number,
  largeThreshold: number,
): { large: boolean; members: APIGuildMember[] } {
  const large = members.length > largeThreshold;
  const everyone = (intents & GatewayIntentBits.GuildPresences) !== 0 && !large;
  return { large, members: members.filter((m) => everyone || m.user.id === botUserId) };
}

/**
 * The GUILD_MEMBERS_CHUNK dispatches answering a REQUEST_GUILD_MEMBERS (op 8) for one guild's members `all`: by `user_ids` (unknown
 * ids in `not_found`), or by `query` (username or nickname prefix, case-insensitive; `''` with `limit` 0 = all
 * members), in chunks of 1000 numbered by `chunk_index` / `chunk_count`, each carrying the request's `nonce`.
 */
export function memberChunks(
  guildId: string,
  all: APIGuildMember[],
  request: GatewayRequestGuildMembersData,
): GatewayGuildMembersChunkDispatchData[] {
  const known = new Set(all.map((m) => m.user.id));
  let members: APIGuildMember[];
  let notFound: string[] | undefined;
  if ('user_ids' in request && request.user_ids !== undefined) {
    const ids = [request.user_ids].flat();
    members = all.filter((m) => ids.includes(m.user.id));
    notFound = ids.filter((id) => !known.has(id));
  } else {
    const query = ('query' in request ? (request.query ?? '') : '').toLowerCase();
    const matches = all.filter(
      (m) => m.user.username.toLowerCase().startsWith(query) || (m.nick ?? '').toLowerCase().startsWith(query),
    );
    const limit = 'limit' in request ? request.limit : 0;
    members = limit > 0 ? matches.slice(0, limit) : matches;
  }
  const count = Math.max(1, Math.ceil(members.length / CHUNK_SIZE));
  return Array.from({ length: count }, (_, index) => ({
    guild_id: guildId,
    members: members.slice(index * CHUNK_SIZE, (index + 1) * CHUNK_SIZE),
    chunk_index: index,
    chunk_count: count,
    ...(notFound && index === 0 ? { not_found: notFound } : {}),
    ...(request.presences ? { presences: [] } : {}),
    ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
  }));
}
