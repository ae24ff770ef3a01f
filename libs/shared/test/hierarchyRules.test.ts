import { PermissionFlagsBits } from 'discord-api-types/v10';
import { type HierarchyFacts, type HierarchyMember, isTimedOut, judgeHierarchy } from '../src';

const G = '100000000000000001';
const OWNER = '200000000000000001';
const ADMIN = '200000000000000002';
const SENIOR = '200000000000000003';
const JUNIOR = '200000000000000004';
const PEER = '200000000000000005';
const MEMBER = '200000000000000006';
const STRANGER = '200000000000000007';
const HIGH = '200000000000000008';

const bits = (...flags: bigint[]) => flags.reduce((all, f) => all | f, 0n).toString();
const mod = bits(PermissionFlagsBits.BanMembers, PermissionFlagsBits.KickMembers, PermissionFlagsBits.ModerateMembers);

/** @everyone 0, Helper 1, Junior 2, Senior 3, ServerManager 4 (Manage Server), Bot 5, Admin 6, Top 7. */
const roles = [
  { id: G, name: '@everyone', position: 0, permissions: bits(PermissionFlagsBits.ViewChannel) },
  { id: 'helper', name: 'Helper', position: 1, permissions: '0' },
  { id: 'junior', name: 'Junior', position: 2, permissions: mod },
  { id: 'senior', name: 'Senior', position: 3, permissions: mod },
  { id: 'manager', name: 'ServerManager', position: 4, permissions: bits(PermissionFlagsBits.ManageGuild) },
  { id: 'bot', name: 'Guildhall', position: 5, permissions: bits(PermissionFlagsBits.ManageRoles) },
  { id: 'admin', name: 'Admin', position: 6, permissions: bits(PermissionFlagsBits.Administrator) },
  { id: 'top', name: 'Top', position: 7, permissions: '0' },
];
const members: Record<string, string[]> = {
  [OWNER]: [],
  [ADMIN]: ['admin'],
  [SENIOR]: ['senior'],
  [JUNIOR]: ['junior', 'helper'],
  [PEER]: ['junior'],
  [MEMBER]: [],
  [HIGH]: ['top'],
};

function member(id: string, until: string | null = null): HierarchyMember | null {
  const held = members[id];
  return held ? { id, roles: held, communicationDisabledUntil: until } : null;
}

function facts(actor: string, target?: string, overrides: Partial<HierarchyFacts> = {}): HierarchyFacts {
  return {
    guild: G,
    owner: OWNER,
    roles,
    botRoles: ['bot'],
    actor: member(actor),
    target: target === undefined ? null : member(target),
    ...overrides,
  };
}

const judge = (actor: string, target?: string, extra: object = {}, overrides: Partial<HierarchyFacts> = {}) =>
  judgeHierarchy({ guild: G, actor, target, ...extra }, facts(actor, target, overrides));

describe('hierarchy rules (judgeHierarchy)', () => {
  it('when a senior acts on a junior, then it is allowed; the other way round, then hierarchy naming both roles', () => {
    expect(judge(SENIOR, JUNIOR)).toEqual({ allowed: true });
    const refused = judge(JUNIOR, SENIOR);
    expect(refused).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(refused.allowed === false && refused.detail).toContain('"Junior" (position 2)');
    expect(refused.allowed === false && refused.detail).toContain('"Senior" (position 3)');
    expect(refused.allowed === false && refused.detail).toContain(SENIOR);
  });

  it('when both hold roles at the same position, then the action is refused', () => {
    expect(judge(JUNIOR, PEER)).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(judge(PEER, JUNIOR)).toMatchObject({ allowed: false, code: 'hierarchy' });
  });

  it('when anyone acts on themselves, then self (even the owner)', () => {
    expect(judge(JUNIOR, JUNIOR)).toMatchObject({ allowed: false, code: 'self' });
    expect(judge(OWNER, OWNER)).toMatchObject({ allowed: false, code: 'self' });
  });

  it('when anyone but the owner acts on the owner, then hierarchy; the owner acts on anyone else below the bot', () => {
    const refused = judge(ADMIN, OWNER);
    expect(refused).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(refused.allowed === false && refused.detail).toContain('owner');
    expect(judge(OWNER, SENIOR)).toEqual({ allowed: true });
    expect(judge(OWNER, MEMBER)).toEqual({ allowed: true });
  });

  it('when an Administrator acts on a member with a higher role, then hierarchy (Administrator does not exempt)', () => {
    expect(judge(ADMIN, HIGH)).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(judge(ADMIN, SENIOR)).toEqual({ allowed: true });
  });

  it("when the target's highest role is not below the bot's, then hierarchy naming the bot, even for the owner", () => {
    const refused = judge(OWNER, ADMIN);
    expect(refused).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(refused.allowed === false && refused.detail).toContain("bot's highest role");
    const equal = judge(OWNER, SENIOR, {}, { botRoles: ['senior'] });
    expect(equal).toMatchObject({ allowed: false, code: 'hierarchy' });
  });

  it('when the target holds Administrator, then a timeout is refused but another action by a higher actor is not', () => {
    const above = { botRoles: ['top'] };
    const timeout = judgeHierarchy(
      { guild: G, actor: OWNER, target: ADMIN, action: 'timeout' },
      facts(OWNER, ADMIN, above),
    );
    expect(timeout).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(timeout.allowed === false && timeout.detail).toContain('Administrator');
    expect(judgeHierarchy({ guild: G, actor: OWNER, target: ADMIN }, facts(OWNER, ADMIN, above))).toEqual({
      allowed: true,
    });
    expect(judge(SENIOR, JUNIOR, { action: 'timeout' })).toEqual({ allowed: true });
  });

  it('when the target is not a member, then only the self and owner rules apply', () => {
    expect(judge(JUNIOR, STRANGER)).toEqual({ allowed: true });
    expect(judge(MEMBER, STRANGER)).toEqual({ allowed: true });
  });

  it('when the actor is not a member or is timed out, then hierarchy (the owner is never either)', () => {
    expect(judge(STRANGER, MEMBER)).toMatchObject({ allowed: false, code: 'hierarchy' });
    const now = Date.parse('2026-01-01T00:00:00Z');
    const timedOut = facts(SENIOR, JUNIOR, { actor: member(SENIOR, '2026-01-01T00:10:00Z') });
    expect(judgeHierarchy({ guild: G, actor: SENIOR, target: JUNIOR }, timedOut, now)).toMatchObject({
      allowed: false,
      code: 'hierarchy',
    });
    expect(judgeHierarchy({ guild: G, actor: SENIOR, target: JUNIOR }, timedOut, now + 10 * 60_000)).toEqual({
      allowed: true,
    });
  });

  it('when a role is at or above the actor highest role, then hierarchy naming the role; below, then allowed', () => {
    expect(judge(SENIOR, undefined, { roles: ['helper', 'junior'] })).toEqual({ allowed: true });
    const refused = judge(SENIOR, undefined, { roles: ['helper', 'senior'] });
    expect(refused).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(refused.allowed === false && refused.detail).toContain('"Senior"');
  });

  it('when a role carries a guarded permission the actor lacks, then hierarchy naming the permission', () => {
    const highSenior = [{ ...roles[3], position: 4.5 }, ...roles.filter((r) => r.id !== 'senior')] as typeof roles;
    const refused = judgeHierarchy(
      { guild: G, actor: SENIOR, roles: ['manager'] },
      facts(SENIOR, undefined, { roles: highSenior }),
    );
    expect(refused).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(refused.allowed === false && refused.detail).toContain('ManageGuild');
    expect(judge(ADMIN, undefined, { roles: ['manager'] })).toEqual({ allowed: true });
    expect(judge(SENIOR, undefined, { roles: ['junior'] })).toEqual({ allowed: true });
  });

  it('when a role is not below the bot, or unknown, then hierarchy even for the owner', () => {
    expect(judge(OWNER, undefined, { roles: ['manager'] })).toEqual({ allowed: true });
    expect(judge(OWNER, undefined, { roles: ['admin'] })).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(judge(OWNER, undefined, { roles: ['bot'] })).toMatchObject({ allowed: false, code: 'hierarchy' });
    expect(judge(OWNER, undefined, { roles: ['999'] })).toMatchObject({ allowed: false, code: 'hierarchy' });
  });

  it('when a timeout ends, then the member is no longer timed out', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(isTimedOut('2026-01-01T00:00:01Z', now)).toBe(true);
    expect(isTimedOut('2026-01-01T00:00:00Z', now)).toBe(false);
    expect(isTimedOut(null, now)).toBe(false);
  });
});
