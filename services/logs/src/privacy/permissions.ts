import type { AccessReply } from '@guildhall/shared';
import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import { type ChannelFacts, THREAD_TYPES } from './channelFacts';

const ALL = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);
const { Administrator, ViewChannel, ManageThreads } = PermissionFlagsBits;

/** Who is looking: guild-level permissions (@everyone + their roles, as bits), their role ids, their user id. */
export interface Viewer {
  user: string;
  roles: string[];
  /** Guild-level permissions (base): @everyone's plus every role's, before channel overwrites. */
  base: bigint;
  owner: boolean;
}

/** `PermissionFlagsBits` names -> a bitfield (names the platform does not define are ignored). */
export function bitsOf(names: readonly string[]): bigint {
  const flags = PermissionFlagsBits as Record<string, bigint>;
  return names.reduce((all, name) => all | (flags[name] ?? 0n), 0n);
}

/** The `Viewer` of `user` from community's `RPC.access` answer about them. */
export function viewerOf(user: string, access: AccessReply): Viewer {
  return { user, roles: access.roles, base: bitsOf(access.permissions), owner: access.owner };
}

/**
 * The viewer's permissions in one channel, computed as the platform does (discord.js `permissionsFor`): owner or
 * Administrator -> everything; else the base, then the @everyone overwrite, then the union of the viewer's role
 * overwrites (deny first, then allow), then the viewer's member overwrite.
 */
export function channelPermissions(viewer: Viewer, guild: string, channel: ChannelFacts): bigint {
  if (viewer.owner || (viewer.base & Administrator) === Administrator) return ALL;
  let perms = viewer.base;
  const everyone = channel.overwrites.find((o) => o.id === guild);
  if (everyone) perms = (perms & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of channel.overwrites) {
    if (o.type !== 0 || o.id === guild || !viewer.roles.includes(o.id)) continue;
    allow |= BigInt(o.allow);
    deny |= BigInt(o.deny);
  }
  perms = (perms & ~deny) | allow;
  const member = channel.overwrites.find((o) => o.type === 1 && o.id === viewer.user);
  if (member) perms = (perms & ~BigInt(member.deny)) | BigInt(member.allow);
  return perms;
}

/**
 * True when the viewer can see messages of `channel`: View Channel there; a thread follows its parent channel, and
 * a private thread also needs Manage Threads on the parent (thread membership is not tracked, so a member of a
 * private thread without Manage Threads is not shown its messages). A thread whose parent is unknown is hidden.
 */
export function canView(
  viewer: Viewer,
  guild: string,
  channel: ChannelFacts,
  lookup: (id: string) => ChannelFacts | undefined,
): boolean {
  if (!THREAD_TYPES.has(channel.type))
    return (channelPermissions(viewer, guild, channel) & ViewChannel) === ViewChannel;
  const parent = channel.parent ? lookup(channel.parent) : undefined;
  if (!parent) return viewer.owner || (viewer.base & Administrator) === Administrator;
  const perms = channelPermissions(viewer, guild, parent);
  if ((perms & ViewChannel) !== ViewChannel) return false;
  return channel.type !== ChannelType.PrivateThread || (perms & ManageThreads) === ManageThreads;
}
