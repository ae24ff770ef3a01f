import type { JournalKind } from '@guildhall/shared';
import { isDuplicateKey, newSnowflake, sortKey } from '@guildhall/shared';
import { ACTOR_RANK, type ActorSource, type EventRow, JournalEventModel } from './model';
import { ActorSourceModel, type SourceRow } from './sources';

/**
 * A duplicate of an event stored less than this long ago (ms) finishes that event's later steps again: the process
 * may have died between storing it and queueing its log embed, and the platform message was then redelivered.
 */
export const RESUME_WINDOW_MS = 10 * 60_000;

/** A new journal event as the ingest code describes it. */
export interface NewEvent {
  guild: string;
  kind: JournalKind;
  target: string | null;
  targetName: string | null;
  channel: string | null;
  /** Kind-specific facts (docs/journal.md); `at` is added. */
  data: Record<string, unknown>;
  /** Identity of what produced it (dispatch type + sequence + payload hash, audit entry id, service event id). */
  dedupe: string;
  /** The actor known from the event itself (message author, audit entry user, service caller), if any. */
  actor?: { id: string | null; name: string | null; source: ActorSource; viaService: boolean };
  /** When it happened on the platform (snowflake time, dispatch timestamp); absent: processing time, until a source
   * gives its time. */
  at?: Date;
}

/** Called with every event newly stored (queues its log embed). */
export type OnRecorded = (event: EventRow) => Promise<void>;

/**
 * Called after what the member records of `users` in `guild` show changed in logs (an event about or by them stored
 * or given its actor, a message of theirs marked deleted); null ids are ignored.
 */
export type OnMembersChanged = (guild: string, users: Array<string | null>) => void;

/**
 * Called with a stored event no waiting source explained (it keeps the actor it came with); may find its actor
 * elsewhere (a `message_delete` in the audit log's grouped entries, `explainDeletion`) and returns the event with
 * it, or null when nothing changed.
 */
export type OnUnexplained = (journal: Journal, event: EventRow) => Promise<EventRow | null>;

/**
 * Stores journal events and gives them their actors. An event finds its actor in an unclaimed actor source
 * (audit-log entry, service case) of the same guild, kind and target that arrived within `windowMs` of it; a source
 * arriving later finds the event the same way. A better source (service > audit > author) replaces a worse one.
 * `membersChanged` hears of every stored or re-attributed event's target and actors (see `OnMembersChanged`); an
 * event no source explained goes to `onUnexplained` before it is handed on.
 */
export class Journal {
  constructor(
    private readonly windowMs: number,
    private readonly onRecorded: OnRecorded,
    readonly membersChanged: OnMembersChanged = () => {},
    private readonly onUnexplained: OnUnexplained = async () => null,
  ) {}

  /**
   * Stores `event` unless its `dedupe` was stored already; returns the stored row, or null for a duplicate. A
   * duplicate of a recent event runs that event's actor matching and `onRecorded` again (both idempotent), so a crash
   * between storing and queueing its embed loses nothing; older duplicates (replays) change nothing.
   */
  async record(event: NewEvent): Promise<EventRow | null> {
    const seenAt = new Date();
    const at = event.at ?? seenAt;
    // The id carries when the event happened, so the journal (ordered by id) lists a backlog processed late in the
    // order it happened on the platform, not in the order it was processed.
    const id = newSnowflake(at);
    const row: EventRow = {
      _id: id,
      key: sortKey(id),
      guild: event.guild,
      kind: event.kind,
      actor: event.actor?.id ?? null,
      actorName: event.actor?.name ?? null,
      actorRank: ACTOR_RANK[event.actor?.source ?? 'none'],
      viaService: event.actor?.viaService ?? false,
      target: event.target,
      targetName: event.targetName,
      channel: event.channel,
      data: { ...event.data, at: at.toISOString() },
      undoneBy: null,
      undoneAt: null,
      undoneAs: null,
      lease: null,
      dedupe: event.dedupe,
      at,
      atKnown: event.at !== undefined,
      seenAt,
    };
    try {
      await JournalEventModel.create(row);
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const existing = await JournalEventModel.findOne({ dedupe: event.dedupe }).lean<EventRow>();
      if (existing && new Date(existing.seenAt ?? existing.at).getTime() > Date.now() - RESUME_WINDOW_MS)
        await this.finish(existing);
      return null;
    }
    return this.finish(row);
  }

  /**
   * Gives a stored event its actor from a waiting source (else asks `onUnexplained`), then hands it to `onRecorded`.
   */
  private async finish(row: EventRow): Promise<EventRow> {
    const stored = (await this.claimSourceFor(row)) ?? (await this.onUnexplained(this, row)) ?? row;
    this.membersChanged(stored.guild, [stored.target, stored.actor]);
    await this.onRecorded(stored);
    return stored;
  }

  /**
   * Stores an actor source (`at` null unless given), then gives it to the closest matching event that has a worse
   * actor. Idempotent on `source._id`, also when redelivered after a crash between claiming an event and giving it
   * the actor (the claimed event gets it then). Returns the event it was given to (also when redelivered), or null
   * when none matched yet (a later event will claim the source).
   */
  async addSource(source: Omit<SourceRow, 'claimedBy' | 'at'> & { at?: Date }): Promise<EventRow | null> {
    const { _id, ...fields } = { at: null, ...source };
    const stored = await ActorSourceModel.findOneAndUpdate(
      { _id },
      { $setOnInsert: { ...fields, claimedBy: null } },
      { upsert: true, returnDocument: 'after' },
    ).lean<SourceRow>();
    if (!stored) return null;
    if (stored.claimedBy) {
      // Claimed already: by a later event, or by this source's earlier delivery, which may have died before it gave
      // the event its actor. Giving it again changes nothing when it was given (`applySource` is conditional).
      const claimant = await JournalEventModel.findById(stored.claimedBy).lean<EventRow>();
      return claimant && ((await this.applySource(claimant, stored)) ?? claimant);
    }
    const rank = ACTOR_RANK[source.source];
    const candidates = await JournalEventModel.find({
      guild: source.guild,
      kind: source.kind,
      target: source.target,
      actorRank: { $lt: rank },
      seenAt: {
        $gte: new Date(source.receivedAt.getTime() - this.windowMs),
        $lte: new Date(source.receivedAt.getTime() + this.windowMs),
      },
    })
      .sort({ seenAt: -1 })
      .limit(5)
      .lean<EventRow[]>();
    for (const event of candidates) {
      const claimed = await ActorSourceModel.findOneAndUpdate(
        { _id: stored._id, claimedBy: null },
        { $set: { claimedBy: event._id } },
      ).lean<SourceRow>();
      if (!claimed) return null;
      const updated = await this.applySource(event, stored);
      if (updated) return updated;
      await ActorSourceModel.updateOne({ _id: stored._id, claimedBy: event._id }, { $set: { claimedBy: null } });
    }
    return null;
  }

  /**
   * Gives `event` the source `source` directly (stored already claimed by the event; idempotent on `source._id`): its
   * actor, facts and time are applied as a matched source's would be (only over a worse actor). Returns the event as
   * it is now, or null when another event holds that source.
   */
  async giveSource(
    event: EventRow,
    source: Omit<SourceRow, 'claimedBy' | 'at'> & { at?: Date },
  ): Promise<EventRow | null> {
    const { _id, ...fields } = { at: null, ...source };
    let stored: SourceRow | null;
    try {
      stored = await ActorSourceModel.findOneAndUpdate(
        { _id },
        { $setOnInsert: { ...fields, claimedBy: event._id } },
        { upsert: true, returnDocument: 'after' },
      ).lean<SourceRow>();
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      stored = await ActorSourceModel.findById(_id).lean<SourceRow>();
    }
    if (stored && stored.claimedBy === null) {
      stored =
        (await ActorSourceModel.findOneAndUpdate(
          { _id, claimedBy: null },
          { $set: { claimedBy: event._id } },
          { returnDocument: 'after' },
        ).lean<SourceRow>()) ?? (await ActorSourceModel.findById(_id).lean<SourceRow>());
    }
    if (!stored || stored.claimedBy !== event._id) return null;
    return (
      (await this.applySource(event, stored)) ?? (await JournalEventModel.findById(event._id).lean<EventRow>()) ?? event
    );
  }

  /** Whether `time` is within the match window of now. */
  withinWindow(time: Date): boolean {
    return Math.abs(Date.now() - new Date(time).getTime()) <= this.windowMs;
  }

  /**
   * Unclaimed audit sources of `kinds` for `target` that arrived within the window, one per kind (the newest), as
   * `{kind, id}`: the caller journals each with the source id as its dedupe key, the key the source's own arrival
   * path uses too, so the two arrival orders racing each other still store one event.
   */
  async waitingAuditSources<K extends JournalKind>(
    guild: string,
    target: string,
    kinds: readonly K[],
  ): Promise<Array<{ kind: K; id: string }>> {
    const now = Date.now();
    const sources = await ActorSourceModel.find({
      guild,
      kind: { $in: kinds },
      target,
      source: 'audit',
      claimedBy: null,
      receivedAt: { $gte: new Date(now - this.windowMs), $lte: new Date(now + this.windowMs) },
    })
      .sort({ receivedAt: -1 })
      .lean<SourceRow[]>();
    return kinds.flatMap((kind) => {
      const source = sources.find((s) => s.kind === kind);
      return source ? [{ kind, id: source._id }] : [];
    });
  }

  private async claimSourceFor(event: EventRow): Promise<EventRow | null> {
    // Events stored before `seenAt` existed fall back to `at` (then the time they were processed).
    const seen = new Date(event.seenAt ?? event.at).getTime();
    const sources = await ActorSourceModel.find({
      guild: event.guild,
      kind: event.kind,
      target: event.target,
      // a source this event claimed before the process died, maybe before the event got its actor, is given again
      claimedBy: { $in: [null, event._id] },
      receivedAt: {
        $gte: new Date(seen - this.windowMs),
        $lte: new Date(seen + this.windowMs),
      },
    }).lean<SourceRow[]>();
    sources.sort((a, b) => ACTOR_RANK[b.source] - ACTOR_RANK[a.source]);
    let current: EventRow = event;
    for (const source of sources) {
      if (ACTOR_RANK[source.source] <= current.actorRank) continue;
      const claimed =
        source.claimedBy === event._id ||
        (await ActorSourceModel.findOneAndUpdate(
          { _id: source._id, claimedBy: null },
          { $set: { claimedBy: event._id } },
        ).lean<SourceRow>());
      if (!claimed) continue;
      current = (await this.applySource(current, source)) ?? current;
    }
    return current === event ? null : current;
  }

  private async applySource(event: EventRow, source: SourceRow): Promise<EventRow | null> {
    const rank = ACTOR_RANK[source.source];
    const set: Record<string, unknown> = { actorRank: rank, viaService: source.viaService || event.viaService };
    if (source.actor) {
      set.actor = source.actor;
      set.actorName = source.actorName;
    }
    for (const [k, v] of Object.entries(source.extra)) set[`data.${k}`] = v;
    if (!event.atKnown && source.at) {
      set.at = source.at;
      set.atKnown = true;
      set['data.at'] = new Date(source.at).toISOString();
    }
    const updated = await JournalEventModel.findOneAndUpdate(
      { _id: event._id, actorRank: { $lt: rank } },
      { $set: set },
      { returnDocument: 'after' },
    ).lean<EventRow>();
    if (updated) this.membersChanged(updated.guild, [updated.target, updated.actor, event.actor]);
    return updated;
  }
}
