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

/** What the response did: roles removed and kept (above the bot or managed by an integration), timeout end, refusal. */
export interface ResponseOutcome {
  response: AntinukeSettingsRow['response'];
  rolesRemoved: string[];
  rolesKept: string[];
  timeoutUntil: string | null;
  failure: PlatformFailure | null;
}

/**
 * Stops the actor as `settings.response` says: `strip_roles` sets their roles to those without a dangerous
 * permission (roles at or above the bot's highest role and integration-managed roles cannot be removed: they are
 * `rolesKept`); `timeout` times them out for `timeoutMinutes`. One member edit, audited with `reason`; a refusal of
 * the platform (or an actor no longer a member) is returned as `failure`, never thrown.
 */
export async function stopActor(
  platform: PlatformApi,
  guild: string,
  actor: string,
  standing: Standing,
  settings: AntinukeSettingsRow,
  reason: string,
): Promise<ResponseOutcome> {
  const outcome: ResponseOutcome = {
    response: settings.response,
    rolesRemoved: [],
    rolesKept: [],
    timeoutUntil: null,
    failure: null,
  };
  const member = standing.member;
  if (!member) {
    outcome.failure = { status: 404, code: 10007, message: 'The actor is no longer a member of the guild' };
    return outcome;
  }
  try {
    if (settings.response === 'timeout') {
      const until = new Date(Date.now() + settings.timeoutMinutes * 60_000).toISOString();
      await platform.guilds.editMember(guild, actor, { communication_disabled_until: until }, { reason });
      outcome.timeoutUntil = until;
      return outcome;
    }
    const dangerous = member.roles.filter((id) => isDangerous(standing.roles.get(id)?.permissions));
    const removable = dangerous.filter((id) => {
      const role = standing.roles.get(id);
      return role !== undefined && !role.managed && role.position < standing.botTop;
    });
    outcome.rolesKept = dangerous.filter((id) => !removable.includes(id));
    if (removable.length) {
      const roles = member.roles.filter((id) => !removable.includes(id));
      await platform.guilds.editMember(guild, actor, { roles }, { reason });
      outcome.rolesRemoved = removable;
    }
  } catch (err) {
    outcome.failure = platformFailure(err);
  }
  return outcome;
}
