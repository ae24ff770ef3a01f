#!/usr/bin/env node
/**
 * Measures the product targets of the embedded server (build first: `npx tsc -b libs/embedded-mongo`):
 *   node libs/embedded-mongo/bench/run.js [docs=200000]
 * 1. inserts/s over the wire with an fsync'd journal (64 concurrent insertOne),
 * 2. `{guild, _id: {$lt: cursor}}` sorted by _id desc limit 50,
 * 3. `{guild, $text: {$search: word}}` sorted by _id desc limit 50 (p50/p95).
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { MongoClient } = require('mongodb');
const { startEmbeddedMongo } = require('../dist/index.js');

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(
  ' ',
);

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main() {
  const total = Number(process.argv[2] ?? 200000);
  const dir = mkdtempSync(join(tmpdir(), 'em-bench-'));
  const server = await startEmbeddedMongo({ dataDir: dir });
  const client = await MongoClient.connect(server.uri(), { maxPoolSize: 64 });
  const coll = client.db('bench').collection('messages');
  await coll.createIndex({ guild: 1 });
  await coll.createIndex({ guild: 1, content: 'text' });

  const n = 20000;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < n) {
        const i = next++;
        await coll.insertOne({ guild: 'g1', content: `${WORDS[i % 16]} ${WORDS[(i * 7) % 16]} message ${i}` });
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  console.log(`single inserts, fsync'd, 64 concurrent: ${Math.round(n / secs)} inserts/s`);

  for (let done = n; done < total; done += 5000) {
    const batch = Array.from({ length: Math.min(5000, total - done) }, (_, j) => {
      const i = done + j;
      return { guild: 'g1', content: `${WORDS[i % 16]} ${WORDS[(i * 7) % 16]} message ${i}` };
    });
    await coll.insertMany(batch);
  }
  console.log(`loaded ${total} docs in guild g1`);

  const ids = await coll
    .find({ guild: 'g1' }, { projection: { _id: 1 } })
    .sort({ _id: -1 })
    .limit(1000)
    .toArray();
  const page = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await coll
      .find({ guild: 'g1', _id: { $lt: ids[i * 5]._id } })
      .sort({ _id: -1 })
      .limit(50)
      .toArray();
    page.push(performance.now() - t);
  }
  console.log(`cursor page (limit 50): p50 ${pct(page, 50).toFixed(2)} ms, p95 ${pct(page, 95).toFixed(2)} ms`);

  const text = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await coll
      .find({ guild: 'g1', $text: { $search: WORDS[i % 16] } })
      .sort({ _id: -1 })
      .limit(50)
      .toArray();
    text.push(performance.now() - t);
  }
  console.log(`$text page (limit 50): p50 ${pct(text, 50).toFixed(2)} ms, p95 ${pct(text, 95).toFixed(2)} ms`);
  await client.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
