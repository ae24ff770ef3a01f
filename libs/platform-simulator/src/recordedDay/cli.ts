import { guildDayNdjson, guildDaySummary, recentDayStart } from './index';

/**
 * `node libs/platform-simulator/dist/recordedDay/cli.js > fixtures/guild-day.ndjson` writes the recorded day;
 * `--recent` writes the same day ending now instead (what the demo replays: search covers only 7 days);
 * with `--summary` it prints the ids, facts and per-event counts as JSON instead.
 */
function main(): void {
  if (process.argv.includes('--summary')) process.stdout.write(`${JSON.stringify(guildDaySummary(), null, 2)}\n`);
  else process.stdout.write(guildDayNdjson(process.argv.includes('--recent') ? recentDayStart() : undefined));
}

main();
