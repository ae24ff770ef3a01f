#!/usr/bin/env node
/**
 * Memory of the embedded server holding logged messages (build first: `npx tsc -b libs/embedded-mongo`):
 *   node libs/embedded-mongo/bench/memory.js [messages=200000]
 * Starts the CLI in memory mode in its own process, creates the logs service's message indexes (as of
 * services/logs/src/messages/model.ts), inserts messages
 * shaped like the logs service's (`insertMany` of 10,000) and prints, at every 100,000 and at the end, the server's
 * RSS (VmRSS, MB), bytes per message and the server's CPU time per 1,000 inserted messages (user + system, from
 * /proc: unlike the insert rate, it does not depend much on what else runs on the machine), then p50/p95 of `findOne`
 * by `_id`, a newest page `{guild}` by `key` desc, a `$text` page and a `$text` page of deleted messages (one client,
 * 200 samples each), and a collection
 * scan (5 samples).
 * `EMBEDDED_MONGO_CLI=path/to/cli.js` measures another build (e.g. an older commit's).
 */
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { MongoClient } = require('mongodb');

const WORDS = [
  ...'the a to and i you it is that of in for this on my be have just not with so but do are was like can what if'.split(
    ' ',
  ),
  ...Array.from({ length: 20000 }, (_, i) => `w${i.toString(36)}`),
];
const GUILD = '1180000000000000001';
const CHANNELS = ['1180000000000000101', '1180000000000000102', '1180000000000000103', '1180000000000000104'];

function rssMb(pid) {
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/** CPU time (user + system) of process `pid` in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function startServer() {
  const cli = process.env.EMBEDDED_MONGO_CLI ?? join(__dirname, '../dist/cli.js');
  const child = spawn(process.execPath, [cli, '--port', '0', '--memory'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (mongodb:\/\/\S+)/.exec(d.toString());
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

function message(n, rand) {
  const id = (BigInt(1_200_000_000_000_000_000n) + BigInt(n) * 4096n).toString();
  const words = Array.from(
    { length: 4 + Math.floor(rand() * 11) },
    () => WORDS[Math.floor(WORDS.length * rand() ** 4)],
  );
  const content = words.join(' ');
  const ms = 1_760_000_000_000 + n * 500;
  return {
    _id: id,
    key: id.padStart(20, '0'),
    guild: GUILD,
    channel: CHANNELS[n % 4],
    author: `11900000000000${String(n % 40).padStart(5, '0')}`,
    authorName: `member ${n % 40}`,
    bot: false,
    content,
    original: content,
    attachments: [],
    replyTo: null,
    forwardOf: null,
    embeds: [],
    stickers: [],
    editedAt: null,
    deletedAt: rand() < 0.03 ? new Date(ms + 60_000) : null,
    createdAt: new Date(ms),
  };
}

/** p50/p95 latency of `samples` calls and the server's CPU time per call (less load-dependent than latency). */
async function timed(pid, samples, fn) {
  const out = [];
  const cpu0 = cpuMs(pid);
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  const cpu = (cpuMs(pid) - cpu0) / samples;
  return `p50 ${pct(out, 50).toFixed(2)} ms, p95 ${pct(out, 95).toFixed(2)} ms, server CPU ${cpu.toFixed(2)} ms/query`;
}

async function main() {
  const total = Number(process.argv[2] ?? 200000);
  const { child, url } = await startServer();
  const client = await MongoClient.connect(url);
  const coll = client.db('logs').collection('messages');
  await coll.createIndex({ guild: 1, content: 'text' }, { default_language: 'none', name: 'guild_content_text' });
  await coll.createIndex({ guild: 1, key: -1 });
  await coll.createIndex({ guild: 1, channel: 1, key: -1 });
  const deleted = { deletedAt: { $gte: new Date(0) } };
  await coll.createIndex(
    { guild: 1, author: 1, key: -1 },
    { name: 'deleted_by_author', partialFilterExpression: deleted },
  );
  await coll.createIndex({ guild: 1, _id: -1 }, { name: 'deleted_newest', partialFilterExpression: deleted });
  await coll.createIndex({ createdAt: 1 }, { expireAfterSeconds: 10 * 365 * 86400 });
  const base = rssMb(child.pid);
  console.log(`server RSS empty: ${base.toFixed(0)} MB`);
  let seed = 1;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const t0 = performance.now();
  const cpu0 = cpuMs(child.pid);
  for (let done = 0; done < total; ) {
    const rows = [];
    for (let i = 0; i < 10000 && done + i < total; i++) rows.push(message(done + i, rand));
    await coll.insertMany(rows, { ordered: false });
    done += rows.length;
    if (done % 100000 === 0 || done === total) {
      const mb = rssMb(child.pid);
      const rate = done / ((performance.now() - t0) / 1000);
      const cpu = ((cpuMs(child.pid) - cpu0) * 1000) / done;
      console.log(
        `${done} messages: RSS ${mb.toFixed(0)} MB (${((mb * 1048576) / done).toFixed(0)} B/message), insertMany ${rate.toFixed(0)} docs/s, server CPU ${cpu.toFixed(0)} ms per 1,000`,
      );
    }
  }
  const ids = Array.from({ length: 200 }, (_, i) => message(Math.floor((i * total) / 200), () => 0.5)._id);
  console.log(`findOne by _id: ${await timed(child.pid, 200, (i) => coll.findOne({ _id: ids[i] }))}`);
  console.log(
    `newest page {guild} by key desc, limit 50: ${await timed(child.pid, 200, () => coll.find({ guild: GUILD }).sort({ key: -1 }).limit(50).toArray())}`,
  );
  console.log(
    `$text page (the, w1, rare word) by _id desc, limit 50: ${await timed(child.pid, 200, (i) =>
      coll
        .find({ guild: GUILD, $text: { $search: ['the', 'w1', 'w2s0'][i % 3] } })
        .sort({ _id: -1 })
        .limit(50)
        .toArray(),
    )}`,
  );
  console.log(
    `$text page of deleted messages (w1; this generator deletes none of them: the whole match is walked) by _id desc, limit 50: ${await timed(
      child.pid,
      200,
      () =>
        coll
          .find({ guild: GUILD, $text: { $search: 'w1' }, ...deleted })
          .sort({ _id: -1 })
          .limit(50)
          .toArray(),
    )}`,
  );
  console.log(
    `collection scan (countDocuments {bot: true}, no index): ${await timed(child.pid, 5, () => coll.countDocuments({ bot: true }))}`,
  );
  console.log(`server RSS at the end: ${rssMb(child.pid).toFixed(0)} MB`);
  await client.close();
  child.kill('SIGTERM');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
