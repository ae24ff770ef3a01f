/**
 * Synthetic data for the benchmark, written straight into the services' databases with the mongodb driver in the
 * services' own document shapes (logs `messages` and `events`, moderation `cases` and `case_counters`), so that
 * 1,000,000 messages take a minute, not an hour of dispatch replay. Content is deterministic (seeded PRNG).
 */
const { FIXTURE_IDS } = require('../../libs/platform-simulator/dist');
const { newCaseRow } = require('../../services/moderation/dist/cases/model');
const { MESSAGE_TTL_SECONDS } = require('../../services/logs/dist/messages/model');

const EPOCH = 1_420_070_400_000n;
/** Worker bits of seeded ids (1023: the services pick theirs at random, replayed ids come from the payloads). */
const SEED_WORKER = 1023n;
const DAY_MS = 86_400_000;

/** A snowflake for time `ms` with a per-call increment (unique for up to 4096 ids per ms and worker). */
function snowflake(ms, increment, worker = SEED_WORKER) {
  return (((BigInt(ms) - EPOCH) << 22n) | (worker << 12n) | BigInt(increment % 4096)).toString();
}

const sortKey = (id) => id.padStart(20, '0');

/** Mulberry32: a small seeded PRNG returning floats in [0, 1). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = (
  'the a to and i you it is that of in for this on my be have just not with so but do are was like can what if ' +
  'me we at all get no they your one out up about how know there now think good yeah lol would time people ' +
  'game server role channel ticket ban mute event stream raid build patch update music vote forum'
).split(' ');

/**
 * The vocabulary: the common chat words above first, then 20,000 made-up words ("w" + base-36 number). Words are
 * drawn with a skewed (Zipf-like) distribution: index = floor(V * r^4), so low indexes are frequent.
 */
const VOCAB = [...COMMON, ...Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`)];

/**
 * Members of the fixture guild as the platform simulator `platform` (the system's `sys.fake`) holds them now:
 * `[{id, name}]` (name: nickname, display name or username), owner, admin and moderator first. The seed functions
 * below take them as `people`.
 */
function fixturePeople(platform) {
  const staff = [FIXTURE_IDS.owner, FIXTURE_IDS.admin, FIXTURE_IDS.moderator];
  const rank = (member) => {
    const i = staff.indexOf(member.user.id);
    return i === -1 ? staff.length : i;
  };
  return [...platform.guild(FIXTURE_IDS.guild).members.values()]
    .sort((a, b) => rank(a) - rank(b))
    .map((m) => ({ id: m.user.id, name: m.nick ?? m.user.global_name ?? m.user.username }));
}

const CHANNELS = [
  FIXTURE_IDS.channels.general,
  FIXTURE_IDS.channels.offTopic,
  FIXTURE_IDS.channels.media,
  FIXTURE_IDS.channels.staffChat,
];

/**
 * Message text of `n` words from the skewed vocabulary. Word frequency falls steeply with its index: "the" is in
 * roughly a third of messages, `w1` (index ~86) in a few percent, `w2s0` (index ~3700) in well under 0.1 %.
 */
function sentence(rand, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(VOCAB[Math.floor(VOCAB.length * rand() ** 4)]);
  return out.join(' ');
}

/**
 * Inserts `count` messages of `guild` into the logs `messages` collection, spread evenly over the last `days` days
 * (ending one minute ago), 3 % of them deleted, authors drawn from `people` (`fixturePeople`). Use another `worker` (BigInt, 0-1023) for each call on the same
 * guild so that ids never collide. `onProgress(done)` after each batch. Resolves `{firstId, lastId}`.
 */
async function seedMessages(
  db,
  { guild, count, days = 6, batch = 10_000, seed = 1, worker = SEED_WORKER, people, onProgress },
) {
  const rand = prng(seed);
  const collection = db.collection('messages');
  const end = Date.now() - 60_000;
  const start = end - days * DAY_MS;
  const step = (end - start) / count;
  let firstId = null;
  let lastId = null;
  for (let done = 0; done < count; ) {
    const rows = [];
    for (let i = 0; i < batch && done + i < count; i++) {
      const n = done + i;
      const ms = Math.floor(start + n * step);
      const id = snowflake(ms, n, worker);
      const person = people[Math.floor(rand() * people.length)];
      const content = sentence(rand, 4 + Math.floor(rand() * 11));
      rows.push({
        _id: id,
        key: sortKey(id),
        guild,
        channel: CHANNELS[Math.floor(rand() * CHANNELS.length)],
        author: person.id,
        authorName: person.name,
        bot: false,
        content,
        original: content,
        attachments: [],
        replyTo: null,
        editedAt: null,
        deletedAt: rand() < 0.03 ? new Date(ms + 60_000) : null,
        createdAt: new Date(ms),
      });
      firstId ??= id;
      lastId = id;
    }
    await collection.insertMany(rows, { ordered: false });
    done += rows.length;
    onProgress?.(done);
  }
  return { firstId, lastId };
}

const JOURNAL_KINDS = [
  ['message_delete', 30],
  ['message_edit', 30],
  ['member_join', 10],
  ['member_leave', 8],
  ['member_roles', 8],
  ['member_nickname', 4],
  ['member_timeout', 3],
  ['member_ban', 2],
  ['channel_update', 2],
  ['role_update', 2],
  ['settings_update', 1],
];

function pickKind(rand) {
  const total = JOURNAL_KINDS.reduce((s, [, w]) => s + w, 0);
  let r = rand() * total;
  for (const [kind, w] of JOURNAL_KINDS) {
    r -= w;
    if (r < 0) return kind;
  }
  return JOURNAL_KINDS[0][0];
}

/**
 * Inserts `count` journal events of `guild` into the logs `events` collection (spread over the last 30 days),
 * targets and actors drawn from `people` (`fixturePeople`; the first four act as moderators) plus 2,000 synthetic
 * users; message events older than the message store's days are stored as the retention sweep leaves them (content
 * out, `contentExpired: true`). Resolves `people`.
 */
async function seedJournal(db, { guild, count, seed = 2, people, onProgress }) {
  const rand = prng(seed);
  const extra = Array.from({ length: 2000 }, (_, i) => ({
    id: snowflake(Date.now() - 900 * DAY_MS, i, 1022n),
    name: `user${i}`,
  }));
  const everyone = [...people, ...extra];
  const collection = db.collection('events');
  const end = Date.now() - 60_000;
  const start = end - 30 * DAY_MS;
  const step = (end - start) / count;
  // Steady state: the retention sweep already took the content out of message events older than the message store's
  // days (seeding it would leave the first sweep ~23,000 events to catch up on during the measurements).
  const contentBefore = Date.now() - MESSAGE_TTL_SECONDS * 1000;
  for (let done = 0; done < count; ) {
    const rows = [];
    for (let i = 0; i < 10_000 && done + i < count; i++) {
      const n = done + i;
      const ms = Math.floor(start + n * step);
      const id = snowflake(ms, n, 1021n);
      const kind = pickKind(rand);
      const target = everyone[Math.floor(rand() * everyone.length)];
      const byMod = kind.startsWith('member_') && kind !== 'member_join' && kind !== 'member_leave';
      const actor = byMod ? people[Math.floor(rand() * 4)] : target;
      const channel = kind.startsWith('message_') ? CHANNELS[Math.floor(rand() * CHANNELS.length)] : null;
      rows.push({
        _id: id,
        key: sortKey(id),
        guild,
        kind,
        actor: actor.id,
        actorName: actor.name,
        actorRank: byMod ? 2 : 1,
        viaService: false,
        target: target.id,
        targetName: target.name,
        channel,
        data: kind.startsWith('message_')
          ? ms < contentBefore
            ? { message: snowflake(ms - 1000, n), contentExpired: true }
            : { message: snowflake(ms - 1000, n), content: sentence(rand, 8) }
          : { reason: null },
        undoneBy: null,
        undoneAt: null,
        undoneAs: null,
        lease: null,
        dedupe: `bench:${kind}:${n}`,
        at: new Date(ms),
      });
    }
    await collection.insertMany(rows, { ordered: false });
    done += rows.length;
    onProgress?.(done);
  }
  return people;
}

const CASE_ACTIONS = ['warn', 'warn', 'warn', 'timeout', 'timeout', 'kick', 'ban', 'note'];

/**
 * Inserts `count` cases of `guild` into the moderation `cases` collection (numbers from..from+count-1, over the last
 * 180 days, targets: the fixture members `people` (`fixturePeople`, the first three are the moderators) take 30 % of
 * cases, the rest 1,000 synthetic users) and sets the guild's
 * case counter to the last number, so cases created afterwards (or by a later call with the next `from`) continue
 * the numbering.
 */
async function seedCases(db, { guild, count, from = 1, seed = 3, people, onProgress }) {
  const rand = prng(seed);
  const extra = Array.from({ length: 1000 }, (_, i) => ({
    id: snowflake(Date.now() - 900 * DAY_MS, i, 1020n),
    name: `user${i}`,
  }));
  const mods = people.slice(0, 3);
  const end = Date.now() - 60_000;
  const start = end - 180 * DAY_MS;
  const rows = [];
  for (let n = from; n < from + count; n++) {
    const at = new Date(Math.floor(start + ((n - from + 1) * (end - start)) / count));
    const target =
      rand() < 0.3 ? people[3 + Math.floor(rand() * (people.length - 3))] : extra[Math.floor(rand() * extra.length)];
    const mod = mods[Math.floor(rand() * mods.length)];
    let action = CASE_ACTIONS[Math.floor(rand() * CASE_ACTIONS.length)];
    if (action === 'note') action = 'warn';
    const duration = action === 'timeout' ? 3600 : null;
    rows.push(
      newCaseRow({
        guild,
        number: n,
        action,
        target: target.id,
        targetName: target.name,
        moderator: mod.id,
        moderatorName: mod.name,
        reason: sentence(rand, 6),
        status: duration ? 'expired' : 'active',
        duration,
        expiresAt: duration ? new Date(at.getTime() + duration * 1000) : null,
        createdAt: at,
      }),
    );
  }
  for (let i = 0; i < rows.length; i += 5000) {
    await db.collection('cases').insertMany(rows.slice(i, i + 5000), { ordered: false });
    onProgress?.(Math.min(rows.length, i + 5000));
  }
  await db.collection('case_counters').updateOne({ _id: guild }, { $set: { seq: from + count - 1 } }, { upsert: true });
}

/**
 * An NDJSON file body of `count` MESSAGE_CREATE gateway dispatches in the fixture guild, shaped like the recorded
 * fixture's (full message object with `member`; authors drawn from `people`, see `fixturePeople`), one per millisecond from `startMs` (default: ending now), and
 * sequence numbers from `firstSeq`. The last
 * message contains the word `marker` so it can be searched for. With `guildCreate` (the GUILD_CREATE `d` of the
 * fixture guild, e.g. `platform.guildCreate(guild, BRIDGE_INTENTS)`) the file opens with that GUILD_CREATE (sequence
 * `firstSeq`, the messages after it) as a gateway session does, so the replay routes the messages as the bridge
 * would (those in the guild's channels on their channel subject). Returns `{text, firstId, lastId}`.
 */
function messageCreateNdjson({
  count,
  marker,
  startMs = Date.now() - count,
  firstSeq = 1_000_000,
  seed = 4,
  people,
  guildCreate,
}) {
  const rand = prng(seed);
  const lines = guildCreate ? [JSON.stringify({ t: 'GUILD_CREATE', s: firstSeq, op: 0, d: guildCreate })] : [];
  if (guildCreate) firstSeq++;
  let firstId = null;
  let lastId = null;
  for (let n = 0; n < count; n++) {
    const ms = startMs + n;
    const id = snowflake(ms, n, 1019n);
    const person = people[Math.floor(rand() * people.length)];
    const content = n === count - 1 ? `${sentence(rand, 6)} ${marker}` : sentence(rand, 4 + Math.floor(rand() * 11));
    const timestamp = new Date(ms).toISOString().replace('Z', '000+00:00');
    lines.push(
      JSON.stringify({
        t: 'MESSAGE_CREATE',
        s: firstSeq + n,
        op: 0,
        d: {
          type: 0,
          tts: false,
          timestamp,
          pinned: false,
          mentions: [],
          mention_roles: [],
          mention_everyone: false,
          id,
          flags: 0,
          embeds: [],
          edited_timestamp: null,
          content,
          components: [],
          channel_id: CHANNELS[n % CHANNELS.length],
          author: {
            id: person.id,
            username: person.name.toLowerCase(),
            avatar: null,
            discriminator: '0',
            public_flags: 0,
            flags: 0,
            global_name: person.name,
            avatar_decoration_data: null,
            collectibles: null,
            primary_guild: null,
          },
          attachments: [],
          guild_id: FIXTURE_IDS.guild,
          member: {
            roles: [FIXTURE_IDS.roles.member],
            nick: null,
            avatar: null,
            banner: null,
            premium_since: null,
            joined_at: '2024-01-01T00:00:00.000000+00:00',
            deaf: false,
            mute: false,
            pending: false,
            flags: 0,
            communication_disabled_until: null,
          },
        },
      }),
    );
    firstId ??= id;
    lastId = id;
  }
  return { text: `${lines.join('\n')}\n`, firstId, lastId };
}

module.exports = {
  seedMessages,
  seedJournal,
  seedCases,
  messageCreateNdjson,
  fixturePeople,
  sentence,
  prng,
  VOCAB,
  CHANNELS,
};
