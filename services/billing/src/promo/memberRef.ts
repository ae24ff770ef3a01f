import type { Identity } from '@guildhall/shared';
import { v5 as uuidV5 } from 'uuid';
import type { UserRefRow } from './model';

/** Fixed namespace of the UUIDv5 ids derived from platform user ids (never change: stored references use it). */
export const MEMBER_UUID_NAMESPACE = '6f1c2a3e-8b7d-4c59-9a0e-5d2f4b1e7c30';

/**
 * The staff-user reference of a platform user (a code redeemer): `id` is the UUIDv5 of the platform user id in
 * `MEMBER_UUID_NAMESPACE` (stable: the same user always maps to the same uuid), `username`/`name` from the
 * identity, `flag` `member`.
 */
export function memberRef(identity: Identity): UserRefRow {
  return {
    id: uuidV5(identity.sub, MEMBER_UUID_NAMESPACE),
    username: identity.username || identity.name,
    name: identity.name,
    flag: 'member',
  };
}

/** The reference of a staff caller: its uuid `sub`, username, name and flag from the staff token. */
export function staffRef(identity: Identity): UserRefRow {
  return { id: identity.sub, username: identity.username, name: identity.name, flag: identity.flag };
}
