/**
 * The ingest figure: MESSAGE_CREATE dispatches published on NATS until the logs service has stored every one and the
 * last is found by a search. Shared by bench/run.js and bench/ingest.js.
 */
const { writeFileSync, mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { BRIDGE_INTENTS, signIdentity } = require('../../libs/shared/dist');
const { replayFile } = require('../../services/bridge/dist');
const { FIXTURE_IDS } = require('../../libs/platform-simulator/dist');
const { fixturePeople, messageCreateNdjson } = require('./seed');

/** Polls `check` every `everyMs` until it resolves truthy; throws after `timeoutMs`. */
async function until(check, timeoutMs, everyMs = 25) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met after ${timeoutMs} ms`);
}

/**
 * Publishes the fixture guild's GUILD_CREATE (as the bridge's session receives it from the platform) and then `count`
 * fresh MESSAGE_CREATE dispatches with `replayFile`, so they are routed as the bridge routes them (the messages of
 * the guild's channels on their channel subject: tickets is not sent them), and waits until the last one is found by a
 * search through the logs service and all of them are stored. Timing starts at the first publish; with `backlog`
 * the logs service is stopped first and timing starts when it is spawned again after publishing (drain rate).
 * Messages are one per millisecond from `startMs`, so two calls with disjoint time ranges count separately.
 * Resolves `{rate, ms, publishMs, publishRate}` (msg/s and ms).
 */
async function measureIngest(sys, logsDb, count, { seq, startMs, backlog = false }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'guildhall-bench-ingest-'));
  const marker = `benchmarker${Date.now().toString(36)}`;
  const { text, firstId, lastId } = messageCreateNdjson({
    count,
    marker,
    startMs,
    firstSeq: seq,
    people: fixturePeople(sys.fake),
    guildCreate: sys.fake.guildCreate(sys.guild, BRIDGE_INTENTS),
  });
  const file = path.join(dir, 'messages.ndjson');
  writeFileSync(file, text);
  if (backlog) await sys.stack.kill('logs', 'SIGTERM');
  let t0 = performance.now();
  const summary = await replayFile({ file, natsUrl: sys.natsUrl, namespace: sys.namespace });
  const publishMs = performance.now() - t0;
  rmSync(dir, { recursive: true, force: true });
  if (summary.published !== count + 1) throw new Error(`replay published ${summary.published} of ${count + 1}`);
  if (backlog) {
    t0 = performance.now();
    await sys.stack.start('logs');
  }
  const identity = await signIdentity(
    { kind: 'user', sub: FIXTURE_IDS.owner, name: 'Rowan', guild: sys.guild, caps: ['messages.search'] },
    sys.identitySecret,
    3600,
  );
  const url = `${sys.urls.logs}/api/v1/servers/${sys.guild}/messages?q=${marker}`;
  await until(async () => {
    const res = await fetch(url, { headers: { 'x-guildhall-identity': identity } });
    const body = await res.json();
    return body.messages?.some((m) => m.id === lastId);
  }, 600_000);
  const range = { guild: sys.guild, key: { $gte: firstId.padStart(20, '0'), $lte: lastId.padStart(20, '0') } };
  await until(async () => (await logsDb.collection('messages').countDocuments(range)) >= count, 600_000, 50);
  const ms = performance.now() - t0;
  return { rate: count / (ms / 1000), ms, publishMs, publishRate: summary.ratePerSecond };
}

module.exports = { measureIngest, until };
