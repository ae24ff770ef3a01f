import {
  connectMongo,
  createLogger,
  disconnectMongo,
  newSnowflake,
  type Outbox,
  type PlatformApi,
} from '@guildhall/shared';
import { stopTestMongo, testDbName, testMongoUrl } from '@guildhall/testkit';
import { ApplicationCommandType, ComponentType, InteractionType } from 'discord-api-types/v10';
import mongoose from 'mongoose';
import { CaseModel, type CaseRow, newCaseRow } from '../src/cases/model';
import { type Lifter, nameLifter, revokeLifted } from '../src/cases/revokeLifted';
import { fileReport } from '../src/reports/fileReport';
import { ReportModel } from '../src/reports/model';
import { openReportModal } from '../src/reports/reportModal';

/**
 * A lift redelivered after the process died between revoking (or naming the revoker of) a case and storing its
 * `case.revoked` event ends as one delivery does: the same case changed, nothing else revoked, one event.
 */
const TARGET = '169378578432131080';
const ADMIN = '169378578432131081';

/** An outbox that keeps one event per key (as the real one does) and dies on its first `dies` emits. */
function outbox(dies = 0) {
  const events = new Map<string, { type: string; case?: number; revokedBy?: string }>();
  let left = dies;
  const fake = {
    // no NATS in these tests: member-record invalidations are not published (`broadcastInvalidation` skips them)
    bus: { isConnected: () => false },
    emit: async (
      _guild: string,
      type: string,
      data: { case?: { number: number }; revokedBy?: string },
      key: string,
    ) => {
      if (left-- > 0) throw new Error('process died');
      if (!events.has(key)) events.set(key, { type, case: data.case?.number, revokedBy: data.revokedBy });
    },
  };
  return { fake: fake as unknown as Outbox<'moderation'>, events };
}

async function guildWithBans(count: number): Promise<string> {
  const guild = newSnowflake();
  for (let number = 1; number <= count; number++) {
    await CaseModel.create(
      newCaseRow({
        guild,
        number,
        action: 'ban',
        target: TARGET,
        targetName: 'sam',
        moderator: ADMIN,
        moderatorName: 'alice',
        reason: 'r',
        status: 'active',
      }),
    );
  }
  return guild;
}

const statuses = async (guild: string) =>
  (await CaseModel.find({ guild }).sort({ number: 1 }).lean<CaseRow[]>()).map((c) => [c.number, c.status, c.revokedBy]);

beforeAll(async () => {
  await connectMongo(await testMongoUrl(), testDbName('moderation-redelivery'), createLogger('test', 'silent'));
});
afterAll(async () => {
  await mongoose.connection.dropDatabase();
  await disconnectMongo();
  await stopTestMongo();
});

it('a journal undo redelivered after its case was revoked emits the event once and revokes no older case', async () => {
  const lifter: Lifter = { by: ADMIN, byName: 'alice', how: 'journal undo', key: 'undo:e1' };
  const clean = await guildWithBans(2);
  const once = outbox();
  await revokeLifted(once.fake, clean, TARGET, 'ban', lifter);

  const guild = await guildWithBans(2);
  const crashed = outbox(1);
  await expect(revokeLifted(crashed.fake, guild, TARGET, 'ban', lifter)).rejects.toThrow('process died');
  await revokeLifted(crashed.fake, guild, TARGET, 'ban', lifter);

  expect(await statuses(guild)).toEqual(await statuses(clean));
  expect(await statuses(guild)).toEqual([
    [1, 'active', null],
    [2, 'revoked', ADMIN],
  ]);
  expect([...crashed.events.values()]).toEqual([...once.events.values()]);
  expect([...crashed.events.values()]).toEqual([{ type: 'case.revoked', case: 2, revokedBy: ADMIN }]);
});

it('an audit entry naming the unbanner, redelivered after the case got its revoker, emits the event once', async () => {
  const unban: Lifter = { by: null, byName: null, how: 'unbanned on the platform', key: 'unban:1' };
  const audit = { by: ADMIN, byName: 'alice', how: 'unbanned on the platform (audit log)', key: 'audit:2' };
  const clean = await guildWithBans(1);
  const once = outbox();
  await revokeLifted(once.fake, clean, TARGET, 'ban', unban);
  await nameLifter(once.fake, clean, TARGET, 'ban', audit);

  const guild = await guildWithBans(1);
  const crashed = outbox(1);
  await revokeLifted(crashed.fake, guild, TARGET, 'ban', unban);
  await expect(nameLifter(crashed.fake, guild, TARGET, 'ban', audit)).rejects.toThrow('process died');
  await nameLifter(crashed.fake, guild, TARGET, 'ban', audit);

  expect(await statuses(guild)).toEqual(await statuses(clean));
  expect(await statuses(guild)).toEqual([[1, 'revoked', ADMIN]]);
  expect([...crashed.events.values()]).toEqual([{ type: 'case.revoked', case: 1, revokedBy: ADMIN }]);
});

it('a report modal redelivered after its report was answered, before report.created was stored, emits it once', async () => {
  const guild = newSnowflake();
  const reporter = { id: ADMIN, username: 'alice', global_name: null };
  const command = {
    id: newSnowflake(),
    token: 'token',
    type: InteractionType.ApplicationCommand,
    guild_id: guild,
    channel_id: '169378578432131082',
    member: { nick: null, user: reporter },
    data: {
      type: ApplicationCommandType.Message,
      name: 'Report message',
      target_id: '169378578432131083',
      resolved: {
        messages: {
          '169378578432131083': {
            id: '169378578432131083',
            channel_id: '169378578432131082',
            content: 'spam',
            author: { id: TARGET, username: 'sam', global_name: null },
          },
        },
      },
    },
  };
  const interaction = {
    ...command,
    id: newSnowflake(),
    type: InteractionType.ModalSubmit,
    data: {
      custom_id: 'mod:report:169378578432131082:169378578432131083',
      components: [
        {
          type: ComponentType.ActionRow,
          components: [{ type: ComponentType.TextInput, custom_id: 'reason', value: 'spam' }],
        },
      ],
    },
  };
  const platform = {
    interactions: { reply: async () => undefined, createModal: async () => undefined },
  } as unknown as PlatformApi;
  const logger = createLogger('test', 'silent');
  await openReportModal(platform, logger, command as never);
  const crashed = outbox(1);
  const events = () => [...crashed.events.values()].map((e) => e.type);
  await expect(fileReport(platform, crashed.fake, logger, interaction as never)).rejects.toThrow('process died');
  await fileReport(platform, crashed.fake, logger, interaction as never);
  await fileReport(platform, crashed.fake, logger, interaction as never);
  expect(events()).toEqual(['report.created']);
  expect(await ReportModel.countDocuments({ guild })).toBe(1);
  expect(await ReportModel.findOne({ guild }).lean()).toMatchObject({
    content: 'spam',
    reason: 'spam',
    author: TARGET,
  });
});
