import { type FakePlatform, startFakePlatform } from '@guildhall/platform-simulator';
import { waitFor } from '@guildhall/testkit';
import {
  BotUser,
  BotUserUnknown,
  createLogger,
  createPlatformApi,
  DEPENDENCY_RETRY_AFTER_S,
  HttpProblem,
} from '../src';

/** `BotUser` against the simulator's `GET /users/@me`. */
let fake: FakePlatform;
const logger = createLogger('test', 'silent');
const outage = { status: 503, code: 0, message: 'Service Unavailable' };
const asked = () => fake.callsTo('GET', '/users/@me').length;
const resolver = () =>
  new BotUser(createPlatformApi({ baseUrl: fake.url, token: 'bot-token' }), logger, {
    firstDelayMs: 5,
    maxDelayMs: 20,
  });

beforeAll(async () => {
  fake = await startFakePlatform();
});
afterAll(() => fake?.close());
beforeEach(() => fake.reset());

it('when the platform fails several reads, then the id is unknown meanwhile and known once it answers', async () => {
  // the REST client tries each read three times on a 5xx: nine failures are three failed reads
  for (let i = 0; i < 9; i++) fake.failNext('GET', '/users/@me', outage);
  const held = fake.holdNextAnswer('GET', '/users/@me');
  const bot = resolver();
  const id = bot.id();
  await held.arrived;
  // a call is recorded when it is answered: the nine failures so far
  expect(asked()).toBe(9);
  expect(bot.known).toBeNull();
  expect(() => bot.now()).toThrow(HttpProblem);
  try {
    bot.now();
  } catch (err) {
    expect(err).toMatchObject({
      status: 503,
      code: 'bot_user_unknown',
      extras: { retryAfter: DEPENDENCY_RETRY_AFTER_S },
    });
  }
  held.release();
  await expect(id).resolves.toBe(fake.botUserId);
  expect(bot.known).toBe(fake.botUserId);
  expect(bot.now()).toBe(fake.botUserId);
  await expect(bot.id()).resolves.toBe(fake.botUserId);
  expect(asked()).toBe(10);
});

it('when it is stopped before the platform answers, then waiting callers get BotUserUnknown and it asks no more', async () => {
  for (let i = 0; i < 3; i++) fake.failNext('GET', '/users/@me', outage);
  const held = fake.holdNextAnswer('GET', '/users/@me');
  const bot = resolver();
  bot.start();
  const waiting = bot.id();
  await held.arrived;
  bot.stop();
  await expect(waiting).rejects.toBeInstanceOf(BotUserUnknown);
  held.release();
  await waitFor(() => asked() === 4);
  await expect(bot.id()).rejects.toBeInstanceOf(BotUserUnknown);
  expect(bot.known).toBeNull();
  // a resolver stopped before it was started never asks
  const unstarted = resolver();
  unstarted.stop();
  await expect(unstarted.id()).rejects.toBeInstanceOf(BotUserUnknown);
  expect(asked()).toBe(4);
});
