import type { CHANNEL_KINDS, StructureReply } from '@guildhall/shared';
import { permissionNames } from '../platform/permissions';
import { botTop } from './loadStructure';
import type { StructureRow } from './model';

type ChannelKind = (typeof CHANNEL_KINDS)[number];

const KINDS: Record<number, ChannelKind> = {
  0: 'text',
  2: 'voice',
  4: 'category',
  5: 'announcement',
  10: 'thread',
  11: 'thread',
  12: 'thread',
  13: 'stage',
  15: 'forum',
  16: 'media',
};

/** The contract's channel kind of a platform channel type (unknown types read as `text`). */
export function channelKind(type: number): ChannelKind {
  return KINDS[type] ?? 'text';
}

/**
 * Stored structure -> the structure response (`GET /structure`, RPC.structure): roles by position (highest first)
 * with permission names, channels by position, `botTop`.
 */
export function toStructure(doc: StructureRow): StructureReply {
  return {
    roles: [...doc.roles]
      .sort((a, b) => b.position - a.position)
      .map((r) => ({
        id: r.id,
        name: r.name,
        color: r.color,
        position: r.position,
        managed: r.managed,
        permissions: permissionNames(r.permissions),
      })),
    channels: [...doc.channels]
      .sort((a, b) => a.position - b.position)
      .map((c) => ({
        id: c.id,
        name: c.name,
        kind: channelKind(c.type),
        parent: c.parent,
        position: c.position,
        tags: c.tags,
      })),
    botTop: botTop(doc),
  };
}
