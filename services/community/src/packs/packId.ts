import { randomInt } from 'node:crypto';

const EPOCH = 1420070400000n;

/**
 * A new pack id: a snowflake-like digit string (milliseconds since 2015-01-01 in the top bits, 22 random bits
 * below), so ids sort by creation time and never collide in practice.
 */
export function newPackId(at: Date = new Date()): string {
  return (((BigInt(at.getTime()) - EPOCH) << 22n) | BigInt(randomInt(0, 1 << 22))).toString();
}
