import { connectMongo, createLogger, disconnectMongo, newSnowflake } from '@guildhall/shared';
import { stopTestMongo, testDbName, testMongoUrl } from '@guildhall/testkit';
import mongoose from 'mongoose';
import type { BillingContext } from '../src/config';
import { applyGrantUpdate, type GrantUpdate } from '../src/premium/applyGrantUpdate';
import { EntitlementModel, GrantModel, HistoryModel } from '../src/premium/model';
import { refreshEntitlement } from '../src/premium/refreshEntitlement';

/**
 * A refresh run again after the process died between storing a changed entitlement and storing its
 * `entitlement.changed` (the notification processed again once its claim lapsed) publishes that event, once.
 */
const cause = { change: 'purchase' as const, source: 'payments' as const, ref: 'sub_1', reason: 'checkout' };

/** A context whose outbox keeps one event per key, dying on its first `dies` emits. */
function context(dies: number) {
  const events = new Map<string, { premium: boolean; change: string }>();
  let left = dies;
  const outbox = {
    emit: async (_guild: string, _type: string, data: { premium: boolean; change: string }, key: string) => {
      if (left-- > 0) throw new Error('process died');
      if (!events.has(key)) events.set(key, { premium: data.premium, change: data.change });
    },
  };
  return { ctx: { outbox, config: { SUBSCRIPTION_LEEWAY_HOURS: 0 } } as unknown as BillingContext, events };
}

async function guildWithGrant(): Promise<string> {
  const guild = newSnowflake();
  const now = new Date();
  await GrantModel.create({
    _id: newSnowflake(),
    guild,
    source: 'payments',
    ref: `sub_${guild}`,
    status: 'active',
    startsAt: now,
    expiresAt: new Date(now.getTime() + 30 * 86_400_000),
    days: null,
    batch: null,
    customer: null,
    eventAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return guild;
}

beforeAll(async () => {
  await connectMongo(await testMongoUrl(), testDbName('billing-redelivery'), createLogger('test', 'silent'));
});
afterAll(async () => {
  await mongoose.connection.dropDatabase();
  await disconnectMongo();
  await stopTestMongo();
});

it('publishes entitlement.changed once when the refresh is run again after a crash before the event', async () => {
  const clean = await guildWithGrant();
  const once = context(0);
  await refreshEntitlement(once.ctx, clean, cause);
  expect([...once.events.values()]).toEqual([{ premium: true, change: 'purchase' }]);

  const guild = await guildWithGrant();
  const crashed = context(1);
  await expect(refreshEntitlement(crashed.ctx, guild, cause)).rejects.toThrow('process died');
  await refreshEntitlement(crashed.ctx, guild, cause);
  await refreshEntitlement(crashed.ctx, guild, cause);
  expect([...crashed.events.values()]).toEqual([...once.events.values()]);
  expect((await EntitlementModel.findById(guild).lean())?.pendingEvent).toBeNull();
});

it('a notification applied again after a crash before its history records and publishes the change it made', async () => {
  const update = (guild: string): GrantUpdate => ({
    guild,
    source: 'payments',
    ref: `sub_${guild}`,
    status: 'active',
    expiresAt: new Date(Date.now() + 30 * 86_400_000),
    customer: null,
    eventAt: new Date(),
    change: null,
    reason: 'checkout',
    historyId: `evt_${guild}`,
  });
  const outcome = async (guild: string, events: Map<string, { change: string }>) => ({
    history: (await HistoryModel.find({ guild }).lean()).map((h) => h.change),
    events: [...events.values()].map((e) => e.change),
  });
  const clean = newSnowflake();
  const once = context(0);
  await applyGrantUpdate(once.ctx, update(clean));
  expect(await outcome(clean, once.events)).toEqual({ history: ['purchase'], events: ['purchase'] });

  const guild = newSnowflake();
  const crashed = context(0);
  jest.spyOn(HistoryModel, 'create').mockRejectedValueOnce(new Error('process died'));
  await expect(applyGrantUpdate(crashed.ctx, update(guild))).rejects.toThrow('process died');
  await applyGrantUpdate(crashed.ctx, update(guild));
  expect(await outcome(guild, crashed.events)).toEqual(await outcome(clean, once.events));
});
