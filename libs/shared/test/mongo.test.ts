import { connectMongo, createLogger, disconnectMongo, isDuplicateKey } from '@guildhall/shared';
import { stopTestMongo, testDbName, testMongoUrl } from '@guildhall/testkit';
import mongoose, { Schema } from 'mongoose';

const schema = new Schema({ guild: String, number: Number, at: Date }, { collection: 'widgets' });
schema.index({ guild: 1, number: -1 }, { unique: true });
schema.index({ at: 1 }, { expireAfterSeconds: 3600 });
const Widget = mongoose.model('Widget', schema);

describe('connectMongo', () => {
  beforeAll(async () => {
    await connectMongo(await testMongoUrl(), testDbName('shared'), createLogger('test', 'silent'));
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await disconnectMongo();
    await stopTestMongo();
  });

  it('resolves only once every model index exists, so a hinted query works at once', async () => {
    const names = (await Widget.listIndexes()).map((i: { name: string }) => i.name).sort();
    expect(names).toEqual(['_id_', 'at_1', 'guild_1_number_-1']);
    await expect(Widget.find({ guild: 'g' }).hint({ guild: 1, number: -1 }).lean()).resolves.toEqual([]);
  });

  it('reports duplicate keys from the unique index', async () => {
    await Widget.create({ guild: 'g', number: 1 });
    const err = await Widget.create({ guild: 'g', number: 1 }).catch((e: unknown) => e);
    expect(isDuplicateKey(err)).toBe(true);
  });

  it('connects with write concern majority and a timeout, retryable writes and reads, read concern majority', async () => {
    const options = mongoose.connection.getClient().options;
    expect(options.writeConcern).toMatchObject({ w: 'majority', wtimeoutMS: 5000 });
    expect(options.readConcern).toMatchObject({ level: 'majority' });
    expect(options.readPreference.mode).toBe('primary');
    expect(options).toMatchObject({ retryWrites: true, retryReads: true });
    await Widget.create({ guild: 'w', number: 1 });
    await expect(Widget.findOne({ guild: 'w' }).lean()).resolves.toMatchObject({ number: 1 });
  });
});
