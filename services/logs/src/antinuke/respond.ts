import { isPlatformNotFound, type PlatformApi, type PlatformFailure, platformFailure } from '@guildhall/shared';
import type { APIGuildMember, APIRole } from 'discord-api-types/v10';
import { isDangerous } from './classify';
import type { AntinukeSettingsRow } from './model';

/** The actor as the platform knows them now: whether they own the guild, their member record (null when gone). */
export interface Standing {
  owner: boolean;
  member: APIGuildMember | null;
  roles: Map<string, APIRole>;
  /** Position of the bot's highest role (it can only edit roles below it). */
  botTop: number;
}

/** Reads the guild (owner, roles), the actor's member record and the bot's from the platform. */
export async function loadStanding(
  platform: PlatformApi,
  guild: string,
  actor: string,
  botUserId: string | null,
): Promise<Standing> {
  const info = await platform.guilds.get(guild);
  const roles = new Map(info.roles.map((r) => [r.id, r]));
  const memberOrNull = (user: string) =>
    platform.guilds.getMember(guild, user).catch((err) => {
      if (isPlatformNotFound(err)) return null;
      throw err;
    });
  const [member, bot] = await Promise.all([memberOrNull(actor), botUserId ? memberOrNull(botUserId) : null]);
  const botTop = Math.max(0, ...(bot?.roles ?? []).map((id) => roles.get(id)?.position ?? 0));
  return { owner: info.owner_id === actor, member, roles, botTop };
}

/** What the response does: roles to remove and kept (above the bot or managed by an integration), timeout end. */
export interface ResponsePlan {
  response: AntinukeSettingsRow['response'];
  rolesRemoved: string[];
  rolesKept: string[];
  timeoutUntil: string | null;
}

/** What the response did: its plan, and the platform's refusal (null when it went through). */
export interface ResponseOutcome extends ResponsePlan {
  failure: PlatformFailure | null;
}

/**
 * Plans stopping the actor as `settings.response` says: `strip_roles` removes their roles with a dangerous
 * permission, or, for a burst made through Guildhall (`throughService`: the bot acted for them, so their weapon was
 * the Guildhall caps their staff roles give, whatever platform permissions those roles carry), every role they hold,
 * so their session's writes stop with their caps (roles at or above the bot's highest role and integration-managed
 * roles cannot be removed: they are `rolesKept`); `timeout` times them out for `timeoutMinutes` from now (a timed-out
 * member has no caps either).
 */
export function planResponse(standing: Standing, settings: AntinukeSettingsRow, throughService: boolean): ResponsePlan {
  const plan: ResponsePlan = { response: settings.response, rolesRemoved: [], rolesKept: [], timeoutUntil: null };
  if (settings.response === 'timeout') {
    plan.timeoutUntil = new Date(Date.now() + settings.timeoutMinutes * 60_000).toISOString();
    return plan;
  }
  const held = standing.member?.roles ?? [];
  const dangerous = throughService ? held : held.filter((id) => isDangerous(standing.roles.get(id)?.permissions));
  plan.rolesRemoved = dangerous.filter((id) => {
    const role = standing.roles.get(id);
    return role !== undefined && !role.managed && role.position < standing.botTop;
  });
  plan.rolesKept = dangerous.filter((id) => !plan.rolesRemoved.includes(id));
  return plan;
}

/**
 * Carries out `plan` on the actor: one member edit (their roles without `rolesRemoved`, or the timeout), audited
 * with `reason`; carried out again it edits the same way. A refusal of the platform (or an actor no longer a member)
 * is returned as `failure`, never thrown.
 */
export async function stopActor(
  platform: PlatformApi,
  guild: string,
  actor: string,
  standing: Standing,
  plan: ResponsePlan,
  reason: string,
): Promise<ResponseOutcome> {
  const member = standing.member;
  // a response refused did nothing: no role removed, no timeout
  const refused = (failure: PlatformFailure) => ({ ...plan, rolesRemoved: [], timeoutUntil: null, failure });
  if (!member) return refused({ status: 404, code: 10007, message: 'The actor is no longer a member of the guild' });
  try {
    if (plan.timeoutUntil) {
      await platform.guilds.editMember(guild, actor, { communication_disabled_until: plan.timeoutUntil }, { reason });
    } else if (plan.rolesRemoved.length) {
      const roles = member.roles.filter((id) => !plan.rolesRemoved.includes(id));
      await platform.guilds.editMember(guild, actor, { roles }, { reason });
    }
    return { ...plan, failure: null };
  } catch (err) {
    return refused(platformFailure(err));
  }
}
