import { REST } from '@discordjs/rest';
import { type FakePlatform, sampleGuild } from '@guildhall/platform-simulator';

/**
 * Empties `fake` (data included), seeds a new `sampleGuild()` and returns it with a REST client that talks to `fake`
 * as the bot (no retries, so each call is one request). For a test's `beforeEach`.
 */
export function freshGuild(fake: FakePlatform): { seed: ReturnType<typeof sampleGuild>; rest: REST } {
  fake.reset({ resetData: true });
  const seed = sampleGuild();
  fake.seedGuild(seed);
  return { seed, rest: new REST({ api: fake.url, version: '10', retries: 0 }).setToken('test-token') };
}
