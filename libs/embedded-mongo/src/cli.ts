#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startEmbeddedMongo } from './index';

/** `guildhall-mongo --port N --host H (--data-dir DIR | --memory)`: runs the server until SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '27017' },
      host: { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string' },
      memory: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
    },
  });
  if (!values.memory && !values['data-dir']) {
    process.stderr.write('usage: embedded-mongo [--port N] [--host H] (--data-dir DIR | --memory) [--verbose]\n');
    process.exit(2);
  }
  const log =
    (level: string) =>
    (...a: unknown[]) =>
      process.stderr.write(`${level} ${a.map(String).join(' ')}\n`);
  const quiet = () => undefined;
  const server = await startEmbeddedMongo({
    port: Number(values.port),
    host: values.host,
    dataDir: values.memory ? undefined : values['data-dir'],
    logger: { info: values.verbose ? log('info') : quiet, warn: log('warn'), error: log('error') },
  });
  process.stdout.write(`embedded-mongo listening on mongodb://${server.host}:${server.port}\n`);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`embedded-mongo: close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`embedded-mongo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
