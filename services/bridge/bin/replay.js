#!/usr/bin/env node

/**
 * `npm run replay -- FILE.ndjson [--speed N] [--window N]`: publishes recorded platform dispatches (one gateway
 * payload per line) to NATS (`NATS_URL`, default nats://127.0.0.1:4222; `NATS_NAMESPACE`, default none), with a
 * progress bar and a summary. `--speed N`: N x real time by the payloads' own times; 0 or absent: as fast as
 * possible. Needs the libraries built (`npm run build`). Exit code 1 when the file cannot be read, NATS is
 * unreachable or a publish failed.
 */
const path = require('node:path');
const cliProgress = require('cli-progress');

function loadLibrary() {
  try {
    return require(path.join(__dirname, '..', 'dist'));
  } catch (err) {
    process.stderr.write(`cannot load services/bridge/dist (run "npm run build" first): ${err.message}\n`);
    process.exit(1);
  }
}

function parseArgs(argv) {
  const args = { file: null, speed: 0, window: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--speed' || a === '--window') {
      const n = Number(argv[++i]);
      if (!Number.isFinite(n) || n < 0) throw new Error(`${a} needs a number >= 0`);
      args[a.slice(2)] = n;
    } else if (a === '--help' || a === '-h') {
      args.help = true;
    } else if (!args.file) {
      args.file = a;
    } else {
      throw new Error(`unexpected argument ${a}`);
    }
  }
  return args;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  if (args.help || !args.file) {
    process.stdout.write('usage: npm run replay -- FILE.ndjson [--speed N] [--window N]\n');
    process.exit(args.help ? 0 : 2);
  }
  const { replayFile, formatReplaySummary } = loadLibrary();
  const bar = new cliProgress.SingleBar(
    { format: 'replay [{bar}] {percentage}% | {value}/{total} dispatches | {duration}s', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const summary = await replayFile({
    file: args.file,
    natsUrl: process.env.NATS_URL || 'nats://127.0.0.1:4222',
    namespace: process.env.NATS_NAMESPACE || undefined,
    speed: args.speed,
    window: args.window,
    onProgress: ({ done, total }) => {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
  }).finally(() => started && bar.stop());
  process.stdout.write(`${formatReplaySummary(summary)}\n`);
  if (summary.failed > 0) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`replay failed: ${err.message}\n`);
  process.exit(1);
});
