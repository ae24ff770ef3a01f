import type { FakePlatform } from '@guildhall/platform-simulator';
import type { AccessReply, CHANNEL_KINDS, HierarchyReply, HierarchyRequest, StructureReply } from '@guildhall/shared';
import { judgeHierarchy, notFound } from '@guildhall/shared';
import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';

type ChannelKind = (typeof CHANNEL_KINDS)[number];

const KINDS: Partial<Record<ChannelType, ChannelKind>> = {
  [ChannelType.GuildText]: 'text',
  [ChannelType.GuildVoice]: 'voice',
  [ChannelType.GuildCategory]: 'category',
  [ChannelType.GuildAnnouncement]: 'announcement',
  [ChannelType.GuildStageVoice]: 'stage',
  [ChannelType.GuildForum]: 'forum',
  [ChannelType.GuildMedia]: 'media',
};

/** `PermissionFlagsBits` names whose bits are all set in `bits` (the platform's decimal string). */
function permissionNames(bits: string): string[] {
  const value = BigInt(bits || '0');
  return Object.entries(PermissionFlagsBits)
    .filter(([, bit]) => (value & bit) === bit)
    .map(([name]) => name);
}

/**
 * The community service's `RPC.structure` answer built from the fake platform's live state of `guild`, for suites
 * that stand in for community: roles highest first (color 0 when unset, permission names), every channel and
 * thread by position (kind from the channel type, threads and unknown types as `thread`; forum tags with the
 * unicode emoji, else the custom emoji id), and `botTop`, the position of the bot's highest role (0 without one).
 * Throws a 404 problem for a guild the fake does not know, as community does.
 */
export function structureFromFake(fake: FakePlatform, guild: string): StructureReply {
  const state = fake.guild(guild);
  if (!state) throw notFound(`guild ${guild} is unknown to the platform`);
  const roles = [...state.roles.values()].sort((a, b) => b.position - a.position);
  const botRoles = new Set(state.members.get(fake.botUserId)?.roles ?? []);
  return {
    roles: roles.map((r) => ({
      id: r.id,
      name: r.name,
      color: r.color ?? 0,
      position: r.position,
      managed: r.managed,
      permissions: permissionNames(r.permissions),
    })),
    channels: [...state.channels.values()]
      .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
      .map((c) => ({
        id: c.id,
        name: c.name ?? '',
        kind: KINDS[c.type] ?? 'thread',
        parent: c.parent_id ?? null,
        position: c.position ?? 0,
        tags: (c.available_tags ?? []).map((t) => ({
          id: t.id,
          name: t.name,
          emoji: t.emoji_name ?? t.emoji_id ?? null,
          moderated: t.moderated,
        })),
      })),
    botTop: Math.max(0, ...roles.filter((r) => botRoles.has(r.id)).map((r) => r.position)),
  };
}

/**
 * Community's `RPC.access` answer computed from the fake platform's live state of `guild`, for suites that stand in
 * for community: member or not, owner, guild-level permission names (@everyone plus the member's roles; every name
 * for the owner or an Administrator) and role ids. `caps` is empty (suites that need caps answer themselves).
 */
export function accessFromFake(fake: FakePlatform, guild: string, user: string): AccessReply {
  const state = fake.guild(guild);
  const member = state?.members.get(user);
  if (!state || !member) return { member: false, owner: false, permissions: [], roles: [], caps: [] };
  const owner = state.owner_id === user;
  let bits = BigInt(state.roles.get(guild)?.permissions ?? '0');
  for (const role of member.roles) bits |= BigInt(state.roles.get(role)?.permissions ?? '0');
  const admin = owner || (bits & PermissionFlagsBits.Administrator) !== 0n;
  const permissions = admin ? Object.keys(PermissionFlagsBits) : permissionNames(bits.toString());
  return { member: true, owner, permissions, roles: [...member.roles], caps: [] };
}

/**
 * Community's `RPC.hierarchy` answer computed from the fake platform's live state (the same rules, `judgeHierarchy`),
 * for suites that stand in for community. Throws a 404 problem for a guild the fake does not know, as community does.
 */
export function hierarchyFromFake(fake: FakePlatform, request: HierarchyRequest): HierarchyReply {
  const state = fake.guild(request.guild);
  if (!state) throw notFound(`guild ${request.guild} is unknown to the platform`);
  const member = (id: string | undefined) => {
    const found = id === undefined ? undefined : state.members.get(id);
    return found && id
      ? { id, roles: [...found.roles], communicationDisabledUntil: found.communication_disabled_until ?? null }
      : null;
  };
  return judgeHierarchy(request, {
    guild: request.guild,
    owner: state.owner_id,
    roles: [...state.roles.values()],
    botRoles: state.members.get(fake.botUserId)?.roles ?? [],
    actor: member(request.actor),
    target: member(request.target),
  });
}
