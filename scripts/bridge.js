#!/usr/bin/env node

/**
 * The platform bridge as a process: connects to the platform's gateway with `PLATFORM_BOT_TOKEN` and publishes every
 * dispatch to NATS (`NATS_URL`, default nats://127.0.0.1:4222; `NATS_NAMESPACE`, default none). Optional:
 * `PLATFORM_API_URL` (REST root asked for the gateway URL, default https://discord.com/api), `PLATFORM_INTENTS`
 * (intents bit field, default the bridge's set), `LOG_LEVEL`. Needs the libraries built (`npm run build`).
 * SIGINT/SIGTERM close the gateway, flush queued dispatches and exit.
 */
const path = require('node:path');

function loadLibrary(name) {
  try {
    return require(path.join(__dirname, '..', 'libs', 'shared', 'dist', name));
  } catch (err) {
    process.stderr.write(`cannot load libs/shared/dist/${name} (run "npm run build" first): ${err.message}\n`);
    process.exit(1);
  }
}

async function main() {
  const { startBridge, BRIDGE_INTENTS } = loadLibrary('platformBridge');
  const { createLogger } = loadLibrary('logger');
  const token = process.env.PLATFORM_BOT_TOKEN;
  if (!token) {
    process.stderr.write('PLATFORM_BOT_TOKEN is not set: the bridge has nothing to connect with\n');
    process.exit(2);
  }
  const intents = process.env.PLATFORM_INTENTS ? Number(process.env.PLATFORM_INTENTS) : BRIDGE_INTENTS;
  if (!Number.isInteger(intents) || intents < 0) {
    process.stderr.write('PLATFORM_INTENTS must be a non-negative integer bit field\n');
    process.exit(2);
  }
  const logger = createLogger('bridge');
  const bridge = await startBridge({
    token,
    intents,
    natsUrl: process.env.NATS_URL || 'nats://127.0.0.1:4222',
    namespace: process.env.NATS_NAMESPACE || undefined,
    restUrl: process.env.PLATFORM_API_URL || undefined,
    logger,
  });
  const shutdown = async () => {
    logger.info({ published: bridge.published() }, 'stopping the bridge');
    await bridge.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err) => {
  process.stderr.write(`bridge failed: ${err.message}\n`);
  process.exit(1);
});
