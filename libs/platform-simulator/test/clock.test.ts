import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { snowflakeTime } from '@guildhall/shared';
import { ChannelType } from 'discord-api-types/v10';

/** A clock that starts at `start` and moves one second forward each time it is read. */
function steppingClock(start: string): () => Date {
  let at = Date.parse(start);
  return () => {
    at += 1000;
    return new Date(at);
  };
}

/** The same members' actions on a simulator: a channel, two messages, an edit, a role, a join. */
async function actions(fake: FakePlatform, seed: ReturnType<typeof sampleGuild>) {
  const admin = fake.actAsUser(seed.ids.owner);
  const member = fake.actAsUser(seed.ids.member);
  const channel = await admin.createChannel(seed.ids.guild, { name: 'planning', type: ChannelType.GuildText });
  const first = await member.sendMessage(seed.ids.general, 'hello');
  const second = await member.sendMessage(seed.ids.general, 'again');
  const edited = await member.editMessage(seed.ids.general, first.id, 'hello, edited');
  const role = await admin.createRole(seed.ids.guild, { name: 'Event Team' });
  const joined = fake.memberJoins(seed.ids.guild, { user: { id: '1350000000000000001', username: 'newcomer' } });
  const audit = fake.guild(seed.ids.guild)!.auditLog.map((e) => e.id);
  return { channel, first, second, edited, role, joined, audit };
}

describe('simulator clock', () => {
  const started: FakePlatform[] = [];
  const seed = sampleGuild();
  afterAll(() => Promise.all(started.map((f) => f.close())));

  async function run() {
    const fake = await startFakePlatform({ clock: { now: steppingClock('2025-03-14T10:00:00Z') } });
    started.push(fake);
    fake.seedGuild(structuredClone(seed));
    return actions(fake, seed);
  }

  it('creates ids and timestamps from the injected time source, the same ones for the same calls', async () => {
    const one = await run();
    const two = await run();
    expect(two).toEqual(one);

    const start = Date.parse('2025-03-14T10:00:00Z');
    for (const id of [one.channel.id, one.first.id, one.second.id, one.role.id, ...one.audit]) {
      const at = snowflakeTime(id).getTime();
      expect(at).toBeGreaterThan(start);
      expect(at).toBeLessThan(start + 3600_000);
    }
    expect(snowflakeTime(one.first.id).toISOString()).toBe(one.first.timestamp);
    expect(Date.parse(one.edited.edited_timestamp!)).toBeGreaterThan(Date.parse(one.first.timestamp));
    expect(Date.parse(String(one.joined.joined_at))).toBeGreaterThan(Date.parse(one.second.timestamp));
    expect(new Set([one.channel.id, one.first.id, one.second.id, one.role.id, ...one.audit]).size).toBe(
      4 + one.audit.length,
    );
  });
});
