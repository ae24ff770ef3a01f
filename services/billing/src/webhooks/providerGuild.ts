import { Snowflake } from '@guildhall/shared';

/**
 * The guild a provider payload names, read as the API reads a guild id: `value` when it is a canonical snowflake
 * string (digits without a leading zero, at most 2^64 - 1, the contract's `Snowflake`), else null. A payload naming
 * `0849…` or `1e5` maps to no guild (its notification ends `unmapped`, reprocessable) instead of a grant stored under
 * an id no guild has. Used for every guild id a provider payload or a stored link carries (Stripe `metadata.guild`,
 * Checkout `client_reference_id`, App Store / Play links).
 */
export function providerGuild(value: unknown): string | null {
  const guild = Snowflake.safeParse(value);
  return guild.success ? guild.data : null;
}
