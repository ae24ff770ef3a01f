import { connectMongo, createLogger, disconnectMongo, newSnowflake, sortKey } from '@guildhall/shared';
import { stopTestMongo, testDbName, testMongoUrl } from '@guildhall/testkit';
import mongoose from 'mongoose';
import { type EventRow, JournalEventModel } from '../src/journal/model';
import { Journal, type NewEvent, RESUME_WINDOW_MS } from '../src/journal/recordEvent';

const event = (dedupe: string): NewEvent => ({
  guild: '849346560000131073',
  kind: 'member_join',
  target: '169378578432131074',
  targetName: 'rowan',
  channel: null,
  data: {},
  dedupe,
});

describe('journal events whose later steps did not finish', () => {
  beforeAll(async () => {
    await connectMongo(await testMongoUrl(), testDbName('logs'), createLogger('test', 'silent'));
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await disconnectMongo();
    await stopTestMongo();
  });

  it('are finished by a redelivery of the same dispatch (the embed is queued after all)', async () => {
    const queued: string[] = [];
    const onRecorded = jest
      .fn(async (row: EventRow) => {
        queued.push(row._id);
      })
      .mockRejectedValueOnce(new Error('process died before queueing the embed'));
    const journal = new Journal(10_000, onRecorded);
    await expect(journal.record(event('GUILD_MEMBER_ADD:1'))).rejects.toThrow('process died');
    expect(await JournalEventModel.countDocuments({ dedupe: 'GUILD_MEMBER_ADD:1' })).toBe(1);
    expect(await journal.record(event('GUILD_MEMBER_ADD:1'))).toBeNull();
    const stored = await JournalEventModel.findOne({ dedupe: 'GUILD_MEMBER_ADD:1' }).lean<EventRow>();
    expect(queued).toEqual([stored!._id]);
    expect(await JournalEventModel.countDocuments({ dedupe: 'GUILD_MEMBER_ADD:1' })).toBe(1);
  });

  it('are left alone when the duplicate comes long after they were stored (a replay of an old file changes nothing)', async () => {
    const onRecorded = jest.fn(async () => undefined);
    const journal = new Journal(10_000, onRecorded);
    const recorded = (await journal.record(event('GUILD_MEMBER_ADD:2')))!;
    const longAgo = new Date(Date.now() - RESUME_WINDOW_MS - 60_000);
    const old = newSnowflake(longAgo);
    await JournalEventModel.create({
      ...recorded,
      _id: old,
      key: sortKey(old),
      dedupe: 'GUILD_MEMBER_ADD:3',
      seenAt: longAgo,
    });
    onRecorded.mockClear();
    expect(await journal.record(event('GUILD_MEMBER_ADD:3'))).toBeNull();
    expect(onRecorded).not.toHaveBeenCalled();
  });
});
