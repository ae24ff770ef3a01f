import { type DiscordAPIError, REST } from '@discordjs/rest';
import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { type APIChannel, Routes } from 'discord-api-types/v10';

describe("simulator: Discord's limits the OpenAPI description does not carry", () => {
  let fake: FakePlatform;
  let rest: REST;
  let seed: ReturnType<typeof sampleGuild>;

  beforeAll(async () => {
    fake = await startFakePlatform();
    rest = new REST({ api: fake.url, version: '10', retries: 0 }).setToken('test-token');
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset({ resetData: true });
    seed = sampleGuild();
    fake.seedGuild(seed);
  });

  /** The 50035 field errors of a refused call (fails when the call succeeds). */
  const fieldErrors = async (call: Promise<unknown>) => {
    const err = await call.then(
      () => {
        throw new Error('expected 50035');
      },
      (e: unknown) => e as DiscordAPIError,
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe(50035);
    return (err.rawError as { errors: Record<string, unknown> }).errors;
  };
  const send = (body: unknown) => rest.post(Routes.channelMessages(seed.ids.general), { body });
  const general = () => fake.guild(seed.id)!.messages.get(seed.ids.general) ?? [];

  it('message content: 2000 characters counted as code points; 2001 refused on `content`', async () => {
    await send({ content: '😀'.repeat(2000) });
    expect(await fieldErrors(send({ content: 'a'.repeat(2001) }))).toEqual({
      content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] },
    });
    expect(general()).toHaveLength(1);
  });

  it('embeds: at most 10, and at most 6000 characters across them', async () => {
    const errors = await fieldErrors(send({ embeds: Array.from({ length: 11 }, () => ({ title: 'x' })) }));
    expect(errors).toHaveProperty('embeds._errors.0.message', expect.stringContaining('10'));
    const big = { description: 'd'.repeat(4000), fields: [{ name: 'n', value: 'v'.repeat(1000) }] };
    await send({ embeds: [big] });
    const tooBig = await fieldErrors(send({ embeds: [big, { description: 'e'.repeat(1000) }] }));
    expect(tooBig).toHaveProperty('embeds._errors.0.code', 'MAX_EMBED_SIZE_EXCEEDED');
    expect(general()).toHaveLength(1);
  });

  it('an edit is held to the same content limit', async () => {
    const sent = (await send({ content: 'short' })) as { id: string };
    const call = rest.patch(Routes.channelMessage(seed.ids.general, sent.id), { body: { content: 'a'.repeat(2001) } });
    expect(await fieldErrors(call)).toHaveProperty('content');
    expect(general()[0].content).toBe('short');
  });

  it('forum tag names: at most 20 characters, on `available_tags.N.name`; nothing changes on refusal', async () => {
    const before = structuredClone(fake.guild(seed.id)!.channels.get(seed.ids.forum));
    const call = rest.patch(Routes.channel(seed.ids.forum), {
      body: { available_tags: [{ name: 'ok' }, { name: 't'.repeat(21) }], topic: 'changed' },
    });
    expect(await fieldErrors(call)).toHaveProperty('available_tags.1.name._errors.0.code', 'BASE_TYPE_BAD_LENGTH');
    expect(fake.guild(seed.id)!.channels.get(seed.ids.forum)).toEqual(before);
    const ok = (await rest.patch(Routes.channel(seed.ids.forum), {
      body: { available_tags: [{ name: 't'.repeat(20) }] },
    })) as APIChannel & { available_tags: Array<{ name: string }> };
    expect(ok.available_tags.map((t) => t.name)).toEqual(['t'.repeat(20)]);
  });

  it('audit-log reason: 512 code points accepted, 513 refused and the ban not made', async () => {
    await rest.put(Routes.guildBan(seed.id, seed.ids.member), { body: {}, reason: '🙂'.repeat(512) });
    expect(fake.guild(seed.id)!.auditLog.at(-1)?.reason).toBe('🙂'.repeat(512));
    const call = rest.put(Routes.guildBan(seed.id, seed.ids.support), { body: {}, reason: 'r'.repeat(513) });
    expect(await fieldErrors(call)).toHaveProperty('reason._errors.0.code', 'BASE_TYPE_MAX_LENGTH');
    expect(fake.guild(seed.id)!.bans.has(seed.ids.support)).toBe(false);
  });
});
