import { isDuplicateKey, LEASE_MS, Leases, newSnowflake, type PlatformApi, snowflakeTime } from '@guildhall/shared';
import type { GatewayGuildAuditLogEntryCreateDispatchData } from 'discord-api-types/v10';
import { entryActor } from '../journal/entryActor';
import { JournalEventModel } from '../journal/model';
import type { Journal } from '../journal/recordEvent';
import { memberName } from '../snapshots/snapshots';
import { antinukeKindOf } from './classify';
import {
  ACTION_TTL_SECONDS,
  AntinukeActionModel,
  AntinukeIncidentModel,
  type AntinukeSettingsRow,
  type IncidentRow,
} from './model';
import { loadStanding, planResponse, stopActor } from './respond';
import { loadAntinukeSettings } from './settings';

/** What anti-nuke needs besides the entry: the platform, the journal, this service's bot user id. */
export interface AntinukeDeps {
  platform: PlatformApi;
  journal: Journal;
  botUserId: string | null;
}

const incidentLeases = new Leases<IncidentRow>(AntinukeIncidentModel, LEASE_MS);

/** The dedupe key of an incident's `antinuke_response` journal event. */
export function responseDedupe(incident: string): string {
  return `antinuke:${incident}`;
}

/**
 * Watches one GUILD_AUDIT_LOG_ENTRY_CREATE for a nuke. The actor is the entry's user, or for an entry of this
 * service's bot the person it acted for (`entryActor`: the `[for <id>]` head `onBehalfReason` writes), so a case ban,
 * revoke, undo or role grant made through Guildhall counts against the staff member who asked, like an action they
 * made in the platform's client; the bot's entries that name nobody are not counted. An entry of a watched kind (see
 * `antinukeKindOf`) by anyone but `exemptUsers` is stored once per entry id (`antinuke_actions`); while the actor has an open
 * incident it joins that incident's burst. Otherwise, when the actor's actions of that kind within the limit's
 * window reach its count, an incident is opened (one per guild and actor at a time, an atomic upsert, so replicas
 * and redeliveries open one) unless the actor owns the guild or holds an exempt role, and answered (`respond`).
 * Entries more than an hour old (a replayed backlog) are ignored. All state is in MongoDB; any replica may handle any
 * entry.
 */
export async function watchAuditEntry(deps: AntinukeDeps, entry: GatewayGuildAuditLogEntryCreateDispatchData) {
  const guild = entry.guild_id;
  const { id: actor, viaService } = entryActor(entry, deps.botUserId);
  // The bot's entries that name nobody (the anti-nuke response itself, changes no person asked for) are not counted.
  if (!actor || actor === deps.botUserId) return;
  const settings = await loadAntinukeSettings(guild);
  if (!settings.enabled || settings.exemptUsers.includes(actor)) return;
  const kind = await antinukeKindOf(deps.platform, entry);
  const limit = kind && settings.limits[kind];
  if (!kind || !limit) return;
  const at = snowflakeTime(entry.id);
  // An entry older than the longest window (a replayed backlog) is history, not a burst to stop now.
  if (Date.now() - at.getTime() > ACTION_TTL_SECONDS * 1000) return;
  const windowMs = limit.seconds * 1000;
  try {
    await AntinukeActionModel.updateOne(
      { _id: entry.id },
      { $setOnInsert: { guild, actor, kind, at, viaService } },
      { upsert: true },
    );
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const joined = await joinIncident(guild, actor, entry.id, at, windowMs);
  if (joined) {
    if (!joined.respondedAt) await respond(deps, joined, settings);
    return;
  }
  const burst = await AntinukeActionModel.find({
    guild,
    actor,
    kind,
    at: { $gt: new Date(at.getTime() - windowMs), $lte: at },
  })
    .sort({ at: 1 })
    .lean<Array<{ _id: string; viaService?: boolean }>>();
  if (burst.length < limit.count) return;
  const standing = await loadStanding(deps.platform, guild, actor, deps.botUserId);
  const exempt = standing.owner || (standing.member?.roles.some((r) => settings.exemptRoles.includes(r)) ?? false);
  const fresh = {
    guild,
    actor,
    kind,
    limit,
    count: burst.length,
    entries: burst.map((a) => a._id),
    exempt,
    throughService: burst.some((a) => a.viaService === true),
  };
  const opened = await openIncident(fresh, at, windowMs);
  const incident = opened ?? (await joinIncident(guild, actor, entry.id, at, windowMs));
  if (incident && !incident.respondedAt) await respond(deps, incident, settings);
}

/**
 * Adds entry `id` (at `at`) to the actor's open incident (one whose window has not passed) and to its response
 * event's entries; returns the incident, or null when none is open.
 */
async function joinIncident(
  guild: string,
  actor: string,
  id: string,
  at: Date,
  windowMs: number,
): Promise<IncidentRow | null> {
  const incident = await AntinukeIncidentModel.findOneAndUpdate(
    { _id: `${guild}:${actor}`, openUntil: { $gte: at } },
    { $addToSet: { entries: id }, $max: { lastAt: at, openUntil: new Date(at.getTime() + windowMs) } },
    { returnDocument: 'after' },
  ).lean<IncidentRow>();
  if (!incident) return null;
  await JournalEventModel.updateOne(
    { dedupe: responseDedupe(incident.incident) },
    { $addToSet: { 'data.detected.entries': id } },
  );
  return incident;
}

/**
 * Opens an incident for the actor unless one is open (an atomic upsert over a closed or missing one: of several
 * replicas racing, one opens it, the others get null and join). An incident of an exempt actor (the owner, a
 * holder of an exempt role) is opened already answered, so the rest of their burst joins it without asking the
 * platform again and nothing is done.
 */
async function openIncident(
  fresh: Pick<IncidentRow, 'guild' | 'actor' | 'kind' | 'limit' | 'count' | 'entries' | 'exempt' | 'throughService'>,
  at: Date,
  windowMs: number,
): Promise<IncidentRow | null> {
  try {
    return await AntinukeIncidentModel.findOneAndUpdate(
      { _id: `${fresh.guild}:${fresh.actor}`, openUntil: { $lt: at } },
      {
        $set: {
          ...fresh,
          incident: newSnowflake(),
          lastAt: at,
          openUntil: new Date(at.getTime() + windowMs),
          respondedAt: fresh.exempt ? new Date() : null,
          lease: null,
        },
      },
      { upsert: true, returnDocument: 'after' },
    ).lean<IncidentRow>();
  } catch (err) {
    if (isDuplicateKey(err)) return null;
    throw err;
  }
}

/**
 * Answers an incident once: claims it (a replica that died mid-response loses the claim when it lapses), plans the
 * response (`planResponse`) and stores the plan on the incident, stops the actor (`stopActor`), stores the
 * `antinuke_response` journal event (dedupe `antinuke:<incident>`; its embed goes to the moderation log) with every
 * entry of the burst, and marks the incident responded. A failure before the event is stored releases the claim and
 * throws, so the redelivered entry answers the incident again, with the stored plan: the roles the first attempt
 * removed are journaled as removed (and removed again), not planned afresh from what is left. An incident still
 * claimed (its responder died; the claim lapses after `LEASE_MS`) throws, so the entry is retried until it is free.
 */
async function respond(deps: AntinukeDeps, incident: IncidentRow, settings: AntinukeSettingsRow): Promise<void> {
  const claim = await incidentLeases.claim({ _id: incident._id, incident: incident.incident, respondedAt: null });
  if (!claim) {
    if (await AntinukeIncidentModel.exists({ _id: incident._id, incident: incident.incident, respondedAt: null }))
      throw new Error(`anti-nuke incident ${incident.incident} is claimed by a responder that has not finished`);
    return;
  }
  const { guild, actor, kind, limit, count } = claim.row;
  const reason = `Anti-nuke: ${count} ${kind} actions within ${limit.seconds} s (limit ${limit.count})`;
  const dedupe = responseDedupe(claim.row.incident);
  try {
    const standing = await loadStanding(deps.platform, guild, actor, deps.botUserId);
    let plan = claim.row.plan;
    if (!plan) {
      plan = planResponse(standing, settings, claim.row.throughService === true);
      await AntinukeIncidentModel.updateOne(
        { _id: claim.row._id, 'lease.holder': claim.lease.holder },
        { $set: { plan } },
      );
    }
    const outcome = await stopActor(deps.platform, guild, actor, standing, plan, reason);
    await deps.journal.record({
      guild,
      kind: 'antinuke_response',
      target: actor,
      targetName: await memberName(guild, actor),
      channel: null,
      data: {
        detected: { kind, count, limit: { count: limit.count, seconds: limit.seconds }, entries: claim.row.entries },
        ...outcome,
        reason,
      },
      dedupe,
      actor: { id: deps.botUserId, name: null, source: 'service', viaService: true },
    });
  } catch (err) {
    // The entry is redelivered and the incident answered again (the platform or MongoDB failed mid-way).
    await incidentLeases.release(claim.row._id, claim.lease);
    throw err;
  }
  const done = await incidentLeases.release(claim.row._id, claim.lease, { $set: { respondedAt: new Date() } });
  // Entries that joined while the response ran are copied into the event too.
  if (done)
    await JournalEventModel.updateOne({ dedupe }, { $addToSet: { 'data.detected.entries': { $each: done.entries } } });
}
