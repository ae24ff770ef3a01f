import type { FakePlatform, RecordedCall } from '@guildhall/platform-simulator';
import { quietBusState, type System, waitFor } from '@guildhall/testkit';
import type { ApiClient } from './client';

/** Guild reads whose answers make up a state snapshot (paths under `/api/v1/servers/{guild}`). */
const GUILD_READS = [
  '/journal?limit=100',
  '/logs',
  '/moderation/settings',
  '/tickets/settings',
  '/appeals?limit=100',
  '/reports?limit=100',
  '/packs',
  '/premium',
  '/structure',
];

/**
 * The state of `guild` as its owner (`client`) reads it through the gateway: journal, settings, appeals, reports,
 * packs, premium, structure, plus the records of `members` (cases about them). JSON text per read, for equality.
 */
export async function guildSnapshot(
  client: ApiClient,
  guild: string,
  members: string[],
): Promise<Record<string, string>> {
  const paths = [...GUILD_READS, ...members.map((m) => `/members/${m}`)];
  const answers = await Promise.all(paths.map((p) => client.get(`/api/v1/servers/${guild}${p}`)));
  return Object.fromEntries(paths.map((p, i) => [p, `${answers[i]!.status} ${JSON.stringify(answers[i]!.body)}`]));
}

/**
 * The snapshot once the system is quiet: read while every JetStream consumer of the system's namespace had consumed
 * and acknowledged every event and dispatch, with nothing published during the read (events still being consumed
 * settle first).
 */
export async function settledSnapshot(
  sys: Pick<System, 'namespace' | 'natsUrl'>,
  client: ApiClient,
  guild: string,
  members: string[],
  timeoutMs = 20_000,
): Promise<Record<string, string>> {
  const snapshot = await waitFor(
    async () => {
      const before = await quietBusState(sys.namespace, sys.natsUrl);
      if (before === null) return null;
      const read = await guildSnapshot(client, guild, members);
      return (await quietBusState(sys.namespace, sys.natsUrl)) === before ? read : null;
    },
    (read) => read !== null,
    timeoutMs,
  );
  return snapshot as Record<string, string>;
}

/** The fake platform's recorded calls that change something (every method but GET). */
export function writeCalls(fake: FakePlatform, since = 0): RecordedCall[] {
  return fake.calls.slice(since).filter((c) => c.method !== 'GET');
}

/** True when a recorded call names the guild or one of its channels/threads. */
export function touchesGuild(call: RecordedCall, fake: FakePlatform, guild: string): boolean {
  if (call.path.includes(`/guilds/${guild}/`) || call.path.endsWith(`/guilds/${guild}`)) return true;
  const state = fake.guild(guild);
  const channel = /^\/channels\/(\d+)/.exec(call.path)?.[1];
  return channel !== undefined && (state?.channels.has(channel) ?? false);
}
