#!/usr/bin/env node

/**
 * `npm run deadletters -- list [DURABLE]` prints the messages durable consumers parked on the DEADLETTER stream (one
 * line each: sequence, time, consumer, subject, reason). `npm run deadletters -- replay DURABLE [--seq N]` publishes
 * the parked messages of DURABLE (only sequence N with --seq) again on their subjects, for DURABLE alone (other
 * consumers of the subject skip them), and removes them from DEADLETTER; run it once the handler is fixed.
 * NATS: `NATS_URL` (default nats://127.0.0.1:4222), `NATS_NAMESPACE` (default none). Needs the libraries built
 * (`npm run build`). Exit code 2 for bad arguments, 1 when NATS is unreachable or a publish failed.
 */
const path = require('node:path');

const USAGE = 'usage: npm run deadletters -- list [DURABLE] | replay DURABLE [--seq N]\n';

function parseArgs(argv) {
  const [command, durable, ...rest] = argv;
  if (command === 'list' && rest.length === 0) return { command, durable };
  if (command === 'replay' && durable && !durable.startsWith('-')) {
    if (rest.length === 0) return { command, durable };
    const seq = Number(rest[1]);
    if (rest[0] === '--seq' && rest.length === 2 && Number.isInteger(seq) && seq > 0) return { command, durable, seq };
  }
  return null;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!args) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  let shared;
  try {
    shared = require(path.join(__dirname, '..', 'libs', 'shared', 'dist'));
  } catch (err) {
    process.stderr.write(`cannot load libs/shared/dist (run "npm run build" first): ${err.message}\n`);
    process.exit(1);
  }
  const bus = await shared.EventBus.connect({
    url: process.env.NATS_URL || 'nats://127.0.0.1:4222',
    name: 'deadletters-cli',
    namespace: process.env.NATS_NAMESPACE || undefined,
    logger: shared.createLogger('deadletters', 'warn'),
  });
  try {
    if (args.command === 'list') {
      const letters = await shared.listDeadLetters(bus, args.durable);
      for (const l of letters) {
        process.stdout.write(`${l.seq}\t${l.time.toISOString()}\t${l.durable}\t${l.subject}\t${l.reason}\n`);
      }
      process.stdout.write(`${letters.length} dead letter(s)\n`);
    } else {
      const replayed = await shared.replayDeadLetters(bus, args.durable, args.seq);
      for (const l of replayed) process.stdout.write(`replayed ${l.seq}\t${l.subject}\n`);
      process.stdout.write(`${replayed.length} dead letter(s) of ${args.durable} replayed\n`);
    }
  } finally {
    await bus.close();
  }
}

main().catch((err) => {
  process.stderr.write(`deadletters failed: ${err.message}\n`);
  process.exit(1);
});
