import {
  broadcastInvalidation,
  dropKey,
  EncodedJson,
  type EventBus,
  type Logger,
  type MemberRecord,
  onInvalidation,
  type Stoppable,
} from '@guildhall/shared';
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';

type Answer = z.infer<typeof MemberRecord>;

/** Reads a member record as JSON (`getMemberRecord` bound to its context). */
export type ReadRecord = (guild: string, user: string, viewer: string) => Promise<EncodedJson<Answer>>;

/** Records kept at most, and their JSON's total length in characters at most (least recently used go first). */
const MAX_RECORDS = 10_000;
const MAX_CHARS = 32 * 1024 * 1024;

/** The part of a Map or lru-cache a drop walks (`dropKey`). */
type Keyed = Parameters<typeof dropKey>[0];

/**
 * Member records as JSON by `guild:user:viewer`, reused for `ttlMs` (0: never) by this process. Dropped on this
 * replica when told (`follow`): `cache.invalidate.member-record` (`<guild>:<user>`, `<guild>:*`, `*`; published by
 * moderation's case and report writes, `recordChanged`, and by logs for journal events, message deletions, sweeps
 * and structure changes) and `cache.invalidate.access` (`<guild>:<viewer>`: the records that viewer read, since the
 * channels they may see changed; `<guild>:*`). A read in flight when its key is dropped is answered but not kept,
 * so an answer read before a change is never stored after it. Concurrent misses of one key share one read.
 */
export class RecordCache {
  private readonly answers = new LRUCache<string, string>({
    max: MAX_RECORDS,
    maxSize: MAX_CHARS,
    sizeCalculation: (json) => Math.max(1, json.length),
  });
  /** Reads in flight by key; a drop removes them, so they are not stored when they finish. */
  private readonly reading = new Map<string, Promise<string>>();

  constructor(
    private readonly read: ReadRecord,
    private readonly ttlMs: number,
  ) {}

  /** The record of `user` in `guild` as `viewer` sees it, encoded (errors of the read are thrown, never kept). */
  async get(guild: string, user: string, viewer: string): Promise<EncodedJson<Answer>> {
    if (this.ttlMs <= 0) return this.read(guild, user, viewer);
    const key = `${guild}:${user}:${viewer}`;
    const json = this.answers.get(key) ?? this.reading.get(key) ?? this.load(key, guild, user, viewer);
    return new EncodedJson(await json);
  }

  /** Drops what `cache.invalidate.member-record` key `key` names (see the class) from this process. */
  forget(key: string): void {
    this.drop(key.endsWith('*') ? key : `${key}:*`);
  }

  /** Follows both invalidation subjects (see the class) until stopped. */
  follow(bus: EventBus, logger: Logger): Stoppable[] {
    return [
      onInvalidation(bus, 'member-record', (key) => this.forget(key), logger),
      onInvalidation(bus, 'access', (key) => this.forgetViewer(key), logger),
    ];
  }

  private load(key: string, guild: string, user: string, viewer: string): Promise<string> {
    const json = this.read(guild, user, viewer).then(({ json: encoded }) => {
      if (this.reading.get(key) === json) this.answers.set(key, encoded, { ttl: this.ttlMs });
      return encoded;
    });
    this.reading.set(key, json);
    const done = () => {
      if (this.reading.get(key) === json) this.reading.delete(key);
    };
    json.then(done, done);
    return json;
  }

  /** Drops `<guild>:<viewer>`'s records (every viewer's with `<guild>:*`). */
  private forgetViewer(key: string): void {
    if (key.endsWith('*')) {
      this.drop(key);
      return;
    }
    const split = key.indexOf(':');
    const guild = key.slice(0, split + 1);
    const viewer = `:${key.slice(split + 1)}`;
    for (const map of [this.answers, this.reading] as Keyed[])
      for (const k of [...map.keys()]) if (k.startsWith(guild) && k.endsWith(viewer)) map.delete(k);
  }

  private drop(pattern: string): void {
    dropKey(this.answers, pattern);
    dropKey(this.reading, pattern);
  }
}

const caches = new WeakMap<EventBus, RecordCache>();

/**
 * This process's record cache of bus connection `bus` (one per moderation context; created by `recordCacheOf`'s
 * first call, following the invalidations until the bus closes).
 */
export function recordCacheOf(bus: EventBus, logger: Logger, read: ReadRecord, ttlMs: number): RecordCache {
  let cache = caches.get(bus);
  if (!cache) {
    cache = new RecordCache(read, ttlMs);
    cache.follow(bus, logger);
    caches.set(bus, cache);
  }
  return cache;
}

/**
 * After a write that changes what the member record of `user` in `guild` shows (a case or report of theirs): drops
 * it from this process at once, so this replica never answers it older than its own write, and tells every replica
 * (`cache.invalidate.member-record`).
 */
export function recordChanged(bus: EventBus, guild: string, user: string): void {
  forgetRecord(bus, guild, user);
  broadcastInvalidation(bus, 'member-record', [`${guild}:${user}`]);
}

/**
 * Drops the member records of `user` in `guild` from this process only (for a change every replica hears of itself,
 * such as a member dispatch).
 */
export function forgetRecord(bus: EventBus, guild: string, user: string): void {
  caches.get(bus)?.forget(`${guild}:${user}`);
}
