/**
 * Ceilings the benchmark compares the project's figures to, measured in the same run on the same machine: a bare
 * express handler answering the same JSON (its own process), the same handler behind a bare proxy hop (its own
 * process), the store's `findOne` by `_id` rate, and NATS JetStream publish + consume of the same dispatch payloads.
 * (The store's bulk-insert ceiling is the timed seeding of each message stage: bench/run.js.)
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { connect } = require('@nats-io/transport-node');
const { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { stopChild } = require('../../scripts/stack.js');

/** Spawns `script` (in bench/lib) with `env` added; resolves `{url, stop()}` once it prints `listening on <origin>`. */
function startCeilingProcess(script, env, pathname) {
  const child = spawn(process.execPath, [path.join(__dirname, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: `${m[1]}${pathname}`, stop: () => stopChild(child) });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

/**
 * Spawns the read ceilings for GET `pathname` answering `body` (parsed JSON): bench/lib/bareExpress.js, and
 * bench/lib/bareProxy.js in front of it. Resolves `{bare, proxy, stop()}`; `bare.url` and `proxy.url` include
 * `pathname`; `stop()` stops both (so does a failed start of the proxy).
 */
async function startBareCeilings(pathname, body) {
  const bare = await startCeilingProcess(
    'bareExpress.js',
    { BARE_PATH: pathname, BARE_BODY: JSON.stringify(body) },
    pathname,
  );
  const proxy = await startCeilingProcess('bareProxy.js', { BARE_TARGET: new URL(bare.url).origin }, pathname).catch(
    async (err) => {
      await bare.stop();
      throw err;
    },
  );
  return {
    bare,
    proxy,
    stop: async () => {
      await proxy.stop();
      await bare.stop();
    },
  };
}

/**
 * `findOne({_id})` calls per second against `collection` (a mongodb driver Collection) from `concurrency`
 * sequential loops for `seconds`, as a service's request handler would issue them. Resolves ops/s.
 */
async function findOneRate(collection, id, { seconds, concurrency }) {
  const deadline = performance.now() + seconds * 1000;
  let ops = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await collection.findOne({ _id: id });
        ops++;
      }
    }),
  );
  return ops / ((performance.now() - started) / 1000);
}

/**
 * NATS JetStream publish + consume of `payloads` (Uint8Array each) through a scratch stream (file storage, like the
 * services' streams) on `natsUrl`: publishes with up to `window` acks outstanding while one pull consumer receives
 * and acks each message. Resolves `{rate, ms}` (msg/s from the first publish until the last message is acked).
 * The stream is deleted afterwards.
 */
async function natsPublishConsume(natsUrl, payloads, { window = 2048 } = {}) {
  const nc = await connect({ servers: natsUrl, name: 'bench-ceiling' });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const name = `BENCH_CEILING_${process.pid}_${Date.now().toString(36)}`;
  const subject = `bench.ceiling.${name}`;
  await jsm.streams.add({ name, subjects: [subject] });
  try {
    await jsm.consumers.add(name, {
      durable_name: 'ceiling',
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_ack_pending: 512,
    });
    const consumer = await js.consumers.get(name, 'ceiling');
    const started = performance.now();
    const consumed = (async () => {
      const messages = await consumer.consume({ max_messages: 512 });
      let n = 0;
      for await (const m of messages) {
        m.ack();
        if (++n === payloads.length) break;
      }
      await messages.close();
    })();
    const inFlight = new Set();
    for (const payload of payloads) {
      const p = js.publish(subject, payload).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= window) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    await consumed;
    const ms = performance.now() - started;
    return { rate: payloads.length / (ms / 1000), ms };
  } finally {
    await jsm.streams.delete(name).catch(() => undefined);
    await nc.close();
  }
}

module.exports = { startBareCeilings, findOneRate, natsPublishConsume };
