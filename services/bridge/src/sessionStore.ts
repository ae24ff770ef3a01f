import type { SessionInfo } from '@discordjs/ws';
import type { EventBus, Logger } from '@guildhall/shared';
import type { KV } from '@nats-io/kv';

/** The key-value bucket (namespace prefix added) holding each shard's gateway session. */
export const SESSION_BUCKET = 'bridge_sessions';

const key = (shardId: number) => `shard-${shardId}`;

/**
 * Gateway sessions of the shards this replica runs, for @discordjs/ws's `retrieveSessionInfo`/`updateSessionInfo`.
 * The library's view (session id, resume URL, last sequence received) is kept in memory for its frequent reads; what
 * survives a restart is persisted in the NATS KV bucket `SESSION_BUCKET`, one key per shard, with the sequence of the
 * last dispatch JetStream acknowledged (`published`) instead: a restarted bridge RESUMEs from there and the platform
 * replays everything after it, including what was received but never stored. Writes are coalesced (one in flight,
 * the newest value wins) and retried while NATS is unreachable.
 *
 * While `hold` is on (backpressure pause, shutdown) the library's updates are ignored, so closing the connection does
 * not forget the session and dispatches dropped during the close do not advance the sequence.
 */
export class SessionStore {
  private readonly live = new Map<number, SessionInfo>();
  /** Sequence of the last dispatch handed to the publisher, per shard, in the live session. */
  private readonly accepted = new Map<number, number>();
  private readonly pending = new Map<number, SessionInfo | null>();
  private writing: Promise<void> | null = null;
  private held = false;
  private closed = false;

  private constructor(
    private readonly kv: KV,
    private readonly logger: Logger,
  ) {}

  /** Opens (creating when missing) the bucket and loads the persisted sessions of `shardIds`. */
  static async open(bus: EventBus, shardIds: number[], logger: Logger): Promise<SessionStore> {
    const kv = await bus.keyValue(SESSION_BUCKET, { history: 1 });
    const store = new SessionStore(kv, logger);
    for (const shardId of shardIds) {
      const entry = await kv.get(key(shardId));
      if (entry?.operation !== 'PUT' || entry.length === 0) continue;
      const info = entry.json<SessionInfo>();
      store.live.set(shardId, info);
      store.accepted.set(shardId, info.sequence);
      logger.info({ shardId, sessionId: info.sessionId, sequence: info.sequence }, 'persisted gateway session loaded');
    }
    return store;
  }

  /** `retrieveSessionInfo` hook: the shard's live session, or null (identify anew). */
  retrieve(shardId: number): SessionInfo | null {
    return this.live.get(shardId) ?? null;
  }

  /** `updateSessionInfo` hook: a new session (READY), a newer sequence, or null (session invalid: forget it). */
  update(shardId: number, info: SessionInfo | null): void {
    if (this.held) return;
    if (!info) {
      this.live.delete(shardId);
      this.accepted.delete(shardId);
      this.persist(shardId, null);
      return;
    }
    if (this.live.get(shardId)?.sessionId !== info.sessionId) this.accepted.set(shardId, info.sequence);
    this.live.set(shardId, info);
  }

  /** The live session id of a shard (for de-duplication ids), or null before its first READY. */
  sessionId(shardId: number): string | null {
    return this.live.get(shardId)?.sessionId ?? null;
  }

  /** Records that the dispatch `sequence` of the shard's live session was handed to the publisher. */
  accept(shardId: number, sequence: number): void {
    if (sequence > (this.accepted.get(shardId) ?? 0)) this.accepted.set(shardId, sequence);
  }

  /**
   * Stops following the library's updates and rewinds each live session to its last accepted dispatch, so a
   * later RESUME asks the platform for everything after it. Call before closing the shards.
   */
  hold(): void {
    this.held = true;
    for (const [shardId, info] of this.live) {
      const sequence = this.accepted.get(shardId);
      if (sequence !== undefined) this.live.set(shardId, { ...info, sequence });
    }
  }

  /** Follows the library's updates again (before reconnecting the shards). */
  release(): void {
    this.held = false;
  }

  /** JetStream stored dispatch `sequence` of session `sessionId` of a shard: persist it as the resume point. */
  published(shardId: number, sessionId: string, sequence: number): void {
    const info = this.live.get(shardId);
    if (!info || info.sessionId !== sessionId) return;
    const queued = this.pending.get(shardId);
    if (queued && queued.sessionId === sessionId && queued.sequence >= sequence) return;
    this.persist(shardId, { ...info, sequence });
  }

  /**
   * Waits until every pending write is stored (retrying while NATS is unreachable, at most `timeoutMs`), then stops
   * writing (shutdown).
   */
  async flush(timeoutMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)));
    await Promise.race([this.writing ?? Promise.resolve(), timeout]);
    clearTimeout(timer);
    this.closed = true;
    if (this.pending.size) this.logger.warn({ shards: [...this.pending.keys()] }, 'gateway sessions not persisted');
  }

  private persist(shardId: number, info: SessionInfo | null): void {
    this.pending.set(shardId, info);
    // `pending` is never empty here, so `write` awaits before it can clear `writing`: the assignment comes first.
    this.writing ??= this.write();
  }

  /**
   * Writes pending sessions until none is left. `writing` is cleared in the same step as the last emptiness check (no
   * await between them), so a session queued after it starts a new writer instead of waiting on a finished one.
   */
  private async write(): Promise<void> {
    let delay = 250;
    try {
      while (this.pending.size) {
        const [shardId, info] = this.pending.entries().next().value as [number, SessionInfo | null];
        try {
          if (info) await this.kv.put(key(shardId), JSON.stringify(info));
          else await this.kv.delete(key(shardId));
          if (this.pending.get(shardId) === info) this.pending.delete(shardId);
          delay = 250;
        } catch (err) {
          if (this.closed) return;
          this.logger.warn({ err, shardId, retryInMs: delay }, 'persisting the gateway session failed; retrying');
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(5_000, delay * 2);
        }
      }
    } finally {
      this.writing = null;
    }
  }
}
