import { startBridgeService } from './service';

/**
 * The bridge process (`node services/bridge/dist/main.js`): boots from the environment (see `bridgeConfigShape`),
 * exits 1 when the configuration is invalid or the bridge cannot start, and stops cleanly on SIGTERM/SIGINT
 * (sessions kept for the next start to RESUME; forced exit after 15 s).
 */
async function main(): Promise<void> {
  const service = await startBridgeService();
  const shutdown = (signal: string) => {
    service.logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 15_000).unref();
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  await service.started.catch(async (err) => {
    service.logger.fatal({ err }, 'bridge failed to start');
    await service.stop();
    process.exit(1);
  });
}

main().catch((err) => {
  console.error(`bridge failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
