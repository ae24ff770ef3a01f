import type { GatewayDispatchPayload } from 'discord-api-types/v10';
import { dayNdjson, recordGuildDay } from './record';

/** Lines per event name, and GUILD_AUDIT_LOG_ENTRY_CREATE per `action_type`. */
function counts(payloads: GatewayDispatchPayload[]) {
  const events: Record<string, number> = {};
  const auditActions: Record<string, number> = {};
  for (const p of payloads) {
    events[p.t] = (events[p.t] ?? 0) + 1;
    if (p.t === 'GUILD_AUDIT_LOG_ENTRY_CREATE')
      auditActions[p.d.action_type] = (auditActions[p.d.action_type] ?? 0) + 1;
  }
  return { events, auditActions };
}

/**
 * `node libs/platform-simulator/dist/recordedDay/cli.js > fixtures/guild-day.ndjson` records the day by driving a
 * simulator (`recordGuildDay`) and writes what the bot received; with `--summary` it prints the day's facts and the
 * per-event counts as JSON instead.
 */
async function main(): Promise<void> {
  const { payloads, facts } = await recordGuildDay();
  if (process.argv.includes('--summary'))
    process.stdout.write(`${JSON.stringify({ lines: payloads.length, facts, counts: counts(payloads) }, null, 2)}\n`);
  else process.stdout.write(dayNdjson(payloads));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
