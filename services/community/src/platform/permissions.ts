import { PermissionFlagsBits } from 'discord-api-types/v10';

const names = new Map<bigint, string>();
for (const [name, bit] of Object.entries(PermissionFlagsBits)) names.set(bit, name);

/** Every permission bit the platform defines (what the owner and Administrator holders have). */
export const ALL_PERMISSION_BITS = [...names.keys()].reduce((all, bit) => all | bit, 0n);

/**
 * The platform's permission names (`PermissionFlagsBits` keys, current names only, e.g. `Administrator`,
 * `ManageGuild`, `BanMembers`) of a permission bitfield given as the platform's decimal string or a bigint.
 */
export function permissionNames(bits: string | bigint): string[] {
  const value = typeof bits === 'bigint' ? bits : BigInt(bits || '0');
  const out: string[] = [];
  for (const [bit, name] of names) if ((value & bit) === bit) out.push(name);
  return out;
}

/** True when `bits` grant every capability of the service: Administrator or Manage Server. */
export function grantsAllCaps(bits: bigint): boolean {
  return (
    (bits & PermissionFlagsBits.Administrator) === PermissionFlagsBits.Administrator ||
    (bits & PermissionFlagsBits.ManageGuild) === PermissionFlagsBits.ManageGuild
  );
}
