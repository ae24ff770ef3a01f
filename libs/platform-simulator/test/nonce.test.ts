import { REST } from '@discordjs/rest';
import { type FakePlatform, NONCE_WINDOW_MS, type sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import type { APIMessage } from 'discord-api-types/v10';
import { Routes } from 'discord-api-types/v10';
import { freshGuild } from './support/freshGuild';

/** Create Message with `nonce` + `enforce_nonce`: Discord returns the author's earlier message instead of posting again. */
describe('message nonces', () => {
  let fake: FakePlatform;
  let rest: REST;
  let seed: ReturnType<typeof sampleGuild>;
  let now = Date.parse('2026-03-01T12:00:00Z');

  beforeAll(async () => {
    fake = await startFakePlatform({ clock: { now: () => new Date(now) } });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    ({ seed, rest } = freshGuild(fake));
  });

  const post = (body: Record<string, unknown>) =>
    rest.post(Routes.channelMessages(seed.ids.general), { body }) as Promise<APIMessage>;
  const stored = () => fake.guild(seed.id)!.messages.get(seed.ids.general) ?? [];

  it('returns the first message for a repeated enforced nonce within the window, and posts again after it', async () => {
    const creates: unknown[] = [];
    const off = fake.onDispatch((_guild, t, d) => {
      if (t === 'MESSAGE_CREATE') creates.push(d);
    });
    const first = await post({ content: 'reminder', nonce: 'remind-1', enforce_nonce: true });
    expect(first.nonce).toBe('remind-1');
    const again = await post({ content: 'reminder (retry)', nonce: 'remind-1', enforce_nonce: true });
    expect(again).toMatchObject({ id: first.id, content: 'reminder', nonce: 'remind-1' });
    expect(stored().filter((m) => m.content.startsWith('reminder'))).toHaveLength(1);
    expect(creates).toEqual([expect.objectContaining({ id: first.id, nonce: 'remind-1' })]);
    // stored messages do not keep the nonce (GET answers without it)
    expect((await rest.get(Routes.channelMessage(seed.ids.general, first.id))) as APIMessage).not.toHaveProperty(
      'nonce',
    );

    now += NONCE_WINDOW_MS + 1;
    const later = await post({ content: 'reminder', nonce: 'remind-1', enforce_nonce: true });
    expect(later.id).not.toBe(first.id);
    off();
    fake.assertNoViolations();
  });

  it('posts every time without enforce_nonce, and keeps nonces apart per author', async () => {
    const a = await post({ content: 'a', nonce: 42 });
    const b = await post({ content: 'b', nonce: 42 });
    expect(a.id).not.toBe(b.id);
    expect(b.nonce).toBe(42);
    const mine = await post({ content: 'c', nonce: 'shared', enforce_nonce: true });
    await fake
      .actAsUser(seed.ids.admin)
      .sendMessage(seed.ids.general, { content: 'theirs', nonce: 'shared', enforce_nonce: true });
    expect(stored().filter((m) => m.content === 'theirs')).toHaveLength(1);
    expect((await post({ content: 'c again', nonce: 'shared', enforce_nonce: true })).id).toBe(mine.id);
    fake.assertNoViolations();
  });

  it('carries out a call whose answer it loses (502): a client retry posts again unless the nonce is enforced', async () => {
    const retrying = new REST({ api: fake.url, version: '10', retries: 1 }).setToken('test-token');
    const send = (body: Record<string, unknown>) =>
      retrying.post(Routes.channelMessages(seed.ids.general), { body }) as Promise<APIMessage>;
    fake.loseNextAnswer('POST', '/channels/{channel_id}/messages');
    await send({ content: 'plain' });
    expect(stored().filter((m) => m.content === 'plain')).toHaveLength(2);
    fake.loseNextAnswer('POST', '/channels/{channel_id}/messages');
    const once = await send({ content: 'once', nonce: 'once-1', enforce_nonce: true });
    expect(
      stored()
        .filter((m) => m.content === 'once')
        .map((m) => m.id),
    ).toEqual([once.id]);
    const statuses = fake.callsTo('POST', '/channels/{channel_id}/messages').map((c) => c.status);
    expect(statuses).toEqual([502, 200, 502, 200]);
    fake.assertNoViolations();
  });
});
