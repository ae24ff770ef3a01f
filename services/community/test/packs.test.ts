import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sampleGuild } from '@guildhall/platform-simulator';
import { waitFor } from '@guildhall/testkit';
import { StickerFormatType } from 'discord-api-types/v10';
import { PackModel, SubscriptionModel, subscriptionId } from '../src/packs/model';
import { type Harness, startHarness } from './harness';

interface PacksView {
  enabled: boolean;
  packs: Array<{
    pack: string;
    name: string;
    position: number;
    contributes: boolean;
    items: number;
    owner: boolean;
    private: boolean;
    contribution: string;
    guests: Array<{ guild: string; invited: boolean; contribution: string; subscribed: boolean; contributes: boolean }>;
    contents: Array<{
      id: string;
      guild: string;
      kind: string;
      name: string;
      animated: boolean;
      url: string;
      held: boolean;
    }>;
  }>;
  available: Array<{ id: string; name: string; createdAt: string; private: boolean }>;
  loose: Array<{ id: string; kind: string; name: string; animated: boolean; url: string }>;
  slots: Array<{ kind: string; used: number; limit: number }>;
}

describe('community: packs and items', () => {
  let h: Harness;
  let cdn: Server;
  const cdnHits: string[] = [];
  const ids = {
    wave: '700000000000000001',
    party: '700000000000000002',
    spare: '700000000000000003',
    dance: '700000000000000004',
    sticker: '700000000000000005',
  };
  const second = sampleGuild();
  const crowded = sampleGuild({
    emojis: Array.from({ length: 49 }, (_, i) => ({
      id: `71000000000000${String(i).padStart(4, '0')}`,
      name: `e${i}`,
    })),
  });
  let packId = '';

  beforeAll(async () => {
    cdn = createServer((req, res) => {
      cdnHits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': req.url?.endsWith('.gif') ? 'image/gif' : 'image/png' });
      res.end(Buffer.from(`image bytes of ${req.url}`));
    });
    await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
    h = await startHarness({ PLATFORM_CDN_URL: `http://127.0.0.1:${(cdn.address() as AddressInfo).port}` });
    h.fake.seedGuild({
      ...h.seed,
      emojis: [
        { id: ids.wave, name: 'wave' },
        { id: ids.party, name: 'party' },
        { id: ids.spare, name: 'spare' },
        { id: ids.dance, name: 'dance', animated: true },
      ],
      stickers: [{ id: ids.sticker, name: 'hello', tags: 'wave', format_type: StickerFormatType.PNG }],
    });
    h.fake.seedGuild(second);
    h.fake.seedGuild(crowded);
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => cdn.close(resolve));
  });

  /** Waits until the job a 202 answer's `Location` names has ended; returns it. */
  const jobOf = async (res: { status: number; headers: Headers }, guild: string, status = 202) => {
    expect(res.status).toBe(status);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^/api/v1/servers/${guild}/jobs/[0-9]+$`));
    const ended = await waitFor(
      () => h.call('GET', location, { guild, caps: ['packs.manage'] }),
      (r) => r.status === 200 && (r.body.state === 'done' || r.body.state === 'failed'),
      10_000,
    );
    return ended.body as { state: string; total: number; done: number; failed: Array<{ name: string; code: number }> };
  };

  const packsOf = async (guild: string) => {
    const res = await h.call('GET', `/api/v1/servers/${guild}/packs`, { guild, caps: ['packs.manage'] });
    expect(res.status).toBe(200);
    return res.body as PacksView;
  };

  it('lists the guild items as loose with slots from the boost tier', async () => {
    const view = await packsOf(h.seed.id);
    expect(view.enabled).toBe(true);
    expect(view.packs).toEqual([]);
    expect(view.loose.map((i) => [i.id, i.kind])).toEqual(
      expect.arrayContaining([
        [ids.wave, 'emoji'],
        [ids.dance, 'animated_emoji'],
        [ids.sticker, 'sticker'],
      ]),
    );
    expect(view.loose.find((i) => i.id === ids.dance)?.url).toMatch(new RegExp(`/emojis/${ids.dance}\\.gif$`));
    expect(view.slots).toEqual([
      { kind: 'emoji', used: 3, limit: 50 },
      { kind: 'animated_emoji', used: 1, limit: 50 },
      { kind: 'sticker', used: 1, limit: 5 },
    ]);
  });

  it('creates a pack, adds the guild items to it and orders them', async () => {
    const created = await h.call('POST', `/api/v1/servers/${h.seed.id}/packs`, { body: { name: 'Party pack' } });
    expect(created.status).toBe(201);
    const pack = created.body as { id: string; name: string };
    expect(pack.id).toMatch(/^[0-9]{15,20}$/);
    packId = pack.id;
    const add = await h.call('POST', `/api/v1/servers/${h.seed.id}/packs/${packId}/items`, {
      body: { ids: [ids.wave, ids.party, ids.dance, ids.sticker] },
    });
    expect(add.body).toBeUndefined();
    expect(await jobOf(add, h.seed.id)).toMatchObject({ state: 'done', total: 0, done: 0, failed: [] });
    const bad = await h.call('POST', `/api/v1/servers/${h.seed.id}/packs/${packId}/items`, {
      body: { ids: [ids.spare, '799999999999999999', ids.wave] },
    });
    expect(bad.status).toBe(400);
    const errors = (bad.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field);
    expect(errors).toEqual(['body.ids.1', 'body.ids.2']);
    const order = [ids.sticker, ids.dance, ids.party, ids.wave];
    expect(
      (await h.call('PUT', `/api/v1/servers/${h.seed.id}/packs/${packId}/items`, { body: { ids: order } })).status,
    ).toBe(204);
    const missing = await h.call('PUT', `/api/v1/servers/${h.seed.id}/packs/${packId}/items`, {
      body: { ids: [ids.sticker, ids.dance] },
    });
    expect(missing.status).toBe(400);
    const view = await packsOf(h.seed.id);
    const base = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;
    expect(view.packs).toEqual([
      {
        pack: packId,
        name: 'Party pack',
        position: 1,
        contributes: true,
        items: 4,
        owner: true,
        private: false,
        contribution: 'owner',
        guests: [],
        contents: [
          {
            id: ids.sticker,
            guild: h.seed.id,
            kind: 'sticker',
            name: 'hello',
            animated: false,
            url: `${base}/stickers/${ids.sticker}.png`,
            held: true,
          },
          {
            id: ids.dance,
            guild: h.seed.id,
            kind: 'animated_emoji',
            name: 'dance',
            animated: true,
            url: `${base}/emojis/${ids.dance}.gif`,
            held: true,
          },
          {
            id: ids.party,
            guild: h.seed.id,
            kind: 'emoji',
            name: 'party',
            animated: false,
            url: `${base}/emojis/${ids.party}.png`,
            held: true,
          },
          {
            id: ids.wave,
            guild: h.seed.id,
            kind: 'emoji',
            name: 'wave',
            animated: false,
            url: `${base}/emojis/${ids.wave}.png`,
            held: true,
          },
        ],
      },
    ]);
    expect(view.loose.map((i) => i.id)).toEqual([ids.spare]);
    const other = await h.call('PUT', `/api/v1/servers/${second.id}/packs/${packId}/items`, {
      guild: second.id,
      body: { ids: order },
    });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('pack_consent');
    expect(h.fake.callsTo('POST', /\/emojis$/)).toHaveLength(0);
  });

  it('subscribing copies every item into the other guild, in order, once', async () => {
    const before = await packsOf(second.id);
    expect(before.available.map((p) => p.id)).toContain(packId);
    const res = await h.call('PUT', `/api/v1/servers/${second.id}/packs/${packId}/subscription`, {
      guild: second.id,
      body: { contributes: false },
    });
    expect(await jobOf(res, second.id)).toMatchObject({ state: 'done', total: 4, done: 4, failed: [] });
    const emojiCalls = h.fake.callsTo('POST', '/guilds/{guild_id}/emojis');
    expect(emojiCalls.map((c) => c.path)).toEqual([
      `/guilds/${second.id}/emojis`,
      `/guilds/${second.id}/emojis`,
      `/guilds/${second.id}/emojis`,
    ]);
    expect(emojiCalls.map((c) => (c.body as { name: string }).name)).toEqual(['dance', 'party', 'wave']);
    expect((emojiCalls[0]?.body as { image?: string } | undefined)?.image).toMatch(/^data:image\/gif;base64,/);
    expect((emojiCalls[1]?.body as { image?: string } | undefined)?.image).toBe(
      `data:image/png;base64,${Buffer.from(`image bytes of /emojis/${ids.party}.png`).toString('base64')}`,
    );
    expect(emojiCalls[0]?.reason).toBe(`[for ${h.seed.ids.owner}] Guildhall: pack Party pack`);
    expect(h.fake.callsTo('POST', '/guilds/{guild_id}/stickers')).toHaveLength(1);
    expect(cdnHits).toEqual([
      `/stickers/${ids.sticker}.png`,
      `/emojis/${ids.dance}.gif`,
      `/emojis/${ids.party}.png`,
      `/emojis/${ids.wave}.png`,
    ]);
    const platform = h.fake.guild(second.id);
    expect([...(platform?.emojis.values() ?? [])].map((e) => e.name).sort()).toEqual(['dance', 'party', 'wave']);
    expect([...(platform?.stickers.values() ?? [])].map((s) => [s.name, s.tags])).toEqual([['hello', 'wave']]);
    const view = await packsOf(second.id);
    expect(view.packs).toEqual([
      expect.objectContaining({
        pack: packId,
        name: 'Party pack',
        position: 1,
        contributes: false,
        items: 4,
        owner: false,
      }),
    ]);
    expect(view.packs[0]?.contents.map((i) => [i.id, i.held])).toEqual([
      [ids.sticker, true],
      [ids.dance, true],
      [ids.party, true],
      [ids.wave, true],
    ]);
    expect(view.available.map((p) => p.id)).not.toContain(packId);
    expect(view.loose).toEqual([]);
    expect(view.slots.find((s) => s.kind === 'emoji')?.used).toBe(2);

    const again = await h.call('PUT', `/api/v1/servers/${second.id}/packs/${packId}/subscription`, {
      guild: second.id,
      body: { contributes: true },
    });
    expect(await jobOf(again, second.id)).toMatchObject({ state: 'done', total: 0 });
    expect(h.fake.callsTo('POST', '/guilds/{guild_id}/emojis')).toHaveLength(3);
    expect((await packsOf(second.id)).packs[0]).toMatchObject({ contributes: true, contribution: 'pending' });
    h.fake.assertNoViolations();
  });

  it('reports a subscription beyond the free slots and copies nothing', async () => {
    const calls = h.fake.calls.length;
    const res = await h.call('PUT', `/api/v1/servers/${crowded.id}/packs/${packId}/subscription`, {
      guild: crowded.id,
      body: { contributes: false },
    });
    expect(res.status).toBe(409);
    const problem = res.body as { detail: string; shortfall: unknown };
    expect(problem.shortfall).toEqual([{ kind: 'emoji', needed: 2, free: 1 }]);
    expect(problem.detail).toContain('emoji needs 2, 1 free');
    const writes = h.fake.calls.slice(calls).filter((c) => c.method !== 'GET');
    expect(writes).toEqual([]);
    expect(h.fake.guild(crowded.id)?.emojis.size).toBe(49);
    expect((await packsOf(crowded.id)).packs).toEqual([]);
  });

  it('previews an item deletion without changing anything, then deletes from every guild', async () => {
    const copyOfWave = [...(h.fake.guild(second.id)?.emojis.values() ?? [])].find((e) => e.name === 'wave')?.id;
    const calls = h.fake.calls.length;
    const preview = await h.call('POST', `/api/v1/servers/${h.seed.id}/items/delete?preview=true`, {
      body: { ids: [ids.wave, '799999999999999999'] },
    });
    expect(preview.status).toBe(200);
    const planned = preview.body as { applied: boolean; lines: string[]; conflicts: string[] };
    expect(planned.applied).toBe(false);
    expect(planned.lines).toEqual([
      `Delete emoji :wave: (${ids.wave}) from this guild`,
      `Delete copy ${copyOfWave} of emoji :wave: (${ids.wave}) from guild ${second.id}`,
    ]);
    expect(planned.conflicts).toEqual(['799999999999999999: not an emoji or sticker of this guild']);
    expect(h.fake.calls.slice(calls).filter((c) => c.method !== 'GET')).toEqual([]);
    expect(h.fake.guild(h.seed.id)?.emojis.has(ids.wave)).toBe(true);

    const fromCopy = await h.call('POST', `/api/v1/servers/${second.id}/items/delete?preview=true`, {
      guild: second.id,
      body: { ids: [copyOfWave as string] },
    });
    expect((fromCopy.body as { conflicts: string[] }).conflicts[0]).toContain(`a copy from pack ${packId}`);

    const applied = await h.call('POST', `/api/v1/servers/${h.seed.id}/items/delete`, { body: { ids: [ids.wave] } });
    expect(applied.status).toBe(200);
    expect((applied.body as { applied: boolean }).applied).toBe(true);
    const deletes = h.fake.callsTo('DELETE', '/guilds/{guild_id}/emojis/{emoji_id}').map((c) => c.path);
    expect(deletes).toEqual([`/guilds/${second.id}/emojis/${copyOfWave}`, `/guilds/${h.seed.id}/emojis/${ids.wave}`]);
    expect(h.fake.guild(h.seed.id)?.emojis.has(ids.wave)).toBe(false);
    expect(h.fake.guild(second.id)?.emojis.has(copyOfWave as string)).toBe(false);
    expect((await packsOf(h.seed.id)).packs[0]?.items).toBe(3);
    expect((await packsOf(second.id)).packs[0]?.contents.map((i) => i.name)).toEqual(['hello', 'dance', 'party']);
    h.fake.assertNoViolations();
  });
  it('unsubscribes after a preview: the copies are deleted on the platform and the pack is available again', async () => {
    const third = sampleGuild();
    h.fake.seedGuild(third);
    const path = `/api/v1/servers/${third.id}/packs/${packId}/subscription`;
    const as = { guild: third.id, caps: ['packs.manage'] };
    expect((await h.call('DELETE', path, as)).status).toBe(404);
    expect((await jobOf(await h.call('PUT', path, { ...as, body: { contributes: false } }), third.id)).state).toBe(
      'done',
    );
    const platform = h.fake.guild(third.id)!;
    const copied = platform.emojis.size + platform.stickers.size;
    expect(copied).toBeGreaterThan(0);

    const preview = await h.call('DELETE', `${path}?preview=true`, as);
    expect(preview.status).toBe(200);
    expect(preview.body.applied).toBe(false);
    expect(preview.body.lines).toHaveLength(copied);
    expect(platform.emojis.size + platform.stickers.size).toBe(copied);
    const bad = await h.call('DELETE', `${path}?preview=maybe`, as);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['query.preview']);

    const done = await h.call('DELETE', path, as);
    expect(done.body).toMatchObject({ applied: true, conflicts: [] });
    expect(await jobOf(done, third.id, 200)).toMatchObject({ state: 'done', total: copied, done: copied, failed: [] });
    expect(platform.emojis.size + platform.stickers.size).toBe(0);
    const view = await packsOf(third.id);
    expect(view.packs).toEqual([]);
    expect(view.available.map((p) => p.id)).toContain(packId);
    expect((await h.call('DELETE', path, as)).status).toBe(404);
    const owner = await h.call('DELETE', `/api/v1/servers/${h.seed.id}/packs/${packId}/subscription`, {
      caps: ['packs.manage'],
    });
    expect(owner.status).toBe(400);
    h.fake.assertNoViolations();
  });

  it('adopts the copy a run that died after the platform call left unrecorded, and lists refused items', async () => {
    const fourth = sampleGuild();
    h.fake.seedGuild(fourth);
    const order = [ids.party, ids.dance, ids.sticker];
    expect(
      (await h.call('PUT', `/api/v1/servers/${h.seed.id}/packs/${packId}/items`, { body: { ids: order } })).status,
    ).toBe(204);
    const subId = subscriptionId(fourth.id, packId);
    await SubscriptionModel.create({
      _id: subId,
      guild: fourth.id,
      pack: packId,
      owner: false,
      position: 1,
      contributes: false,
      copies: [],
      pending: { item: ids.party, at: new Date(Date.now() - 1000) },
      createdAt: new Date(),
    });
    const orphan = await h.service.ctx.platform.guilds.createEmoji(fourth.id, {
      name: 'party',
      image: `data:image/png;base64,${Buffer.from('png').toString('base64')}`,
    });
    const before = h.fake.callsTo('POST', `/guilds/${fourth.id}/emojis`).length;
    h.fake.failNext('POST', '/guilds/{guild_id}/stickers', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    const res = await h.call('PUT', `/api/v1/servers/${fourth.id}/packs/${packId}/subscription`, {
      guild: fourth.id,
      body: { contributes: false },
    });
    const job = await jobOf(res, fourth.id);
    expect(job).toMatchObject({ state: 'done', total: 3, done: 2 });
    expect(job.failed).toEqual([
      { item: ids.sticker, name: 'hello', status: 403, code: 50013, message: 'Missing Permissions' },
    ]);
    const created = h.fake.callsTo('POST', `/guilds/${fourth.id}/emojis`).slice(before);
    expect(created.map((c) => (c.body as { name: string }).name).sort()).toEqual(['dance']);
    const sub = await SubscriptionModel.findById(subId).lean();
    expect(sub?.copies).toContainEqual({ item: ids.party, id: orphan.id });
    expect(sub?.pending).toBeNull();
    expect([...(h.fake.guild(fourth.id)?.emojis.values() ?? [])].filter((e) => e.name === 'party')).toHaveLength(1);
    const missing = await h.call('GET', `/api/v1/servers/${fourth.id}/jobs/1234567890123456789`, { guild: fourth.id });
    expect(missing.status).toBe(404);
  });
});

describe('community: consent between guilds on packs', () => {
  let h: Harness;
  let cdn: Server;
  const ownerItems = { owl: '720000000000000001', fox: '720000000000000002' };
  const helperItems = { bee: '721000000000000001', ant: '721000000000000002' };
  const helper = sampleGuild({
    emojis: [
      { id: helperItems.bee, name: 'bee' },
      { id: helperItems.ant, name: 'ant' },
    ],
  });
  const watcher = sampleGuild({ emojis: [] });
  const stranger = sampleGuild({ emojis: [] });
  let packId = '';
  const manage = (guild: string) => ({ guild, caps: ['packs.manage'] });
  const packsOf = async (guild: string) => {
    const res = await h.call('GET', `/api/v1/servers/${guild}/packs`, manage(guild));
    expect(res.status).toBe(200);
    return res.body as PacksView;
  };
  /** Waits until the job a `Location` names has ended. */
  const ended = (guild: string, location: string | null) =>
    waitFor(
      () => h.call('GET', location ?? '', manage(guild)),
      (r) => r.status === 200 && (r.body.state === 'done' || r.body.state === 'failed'),
      10_000,
    );
  const names = (guild: string) => [...(h.fake.guild(guild)?.emojis.values() ?? [])].map((e) => e.name).sort();
  const packItems = async () => ((await PackModel.findById(packId).lean())?.items ?? []).map((i) => i.id);
  const subscribe = async (guild: string, contributes: boolean) => {
    const res = await h.call('PUT', `/api/v1/servers/${guild}/packs/${packId}/subscription`, {
      ...manage(guild),
      body: { contributes },
    });
    expect(res.status).toBe(202);
    return ended(guild, res.headers.get('location'));
  };
  const add = (guild: string, ids: string[]) =>
    h.call('POST', `/api/v1/servers/${guild}/packs/${packId}/items`, { ...manage(guild), body: { ids } });
  const order = (guild: string, ids: string[]) =>
    h.call('PUT', `/api/v1/servers/${guild}/packs/${packId}/items`, { ...manage(guild), body: { ids } });
  const consent = (other: string, contributor: boolean | null) =>
    h.call(
      contributor === null ? 'DELETE' : 'PUT',
      `/api/v1/servers/${h.seed.id}/packs/${packId}/guests/${other}`,
      contributor === null ? {} : { body: { contributor } },
    );
  /** The pack changes journaled so far (settings.updated of area pack) as [guild, peer, summary]. */
  const journaled = () =>
    h.events.flatMap((e) =>
      e.type === 'settings.updated' && e.data.area === 'pack' && 'peer' in e.data
        ? [[e.guild, e.data.peer, e.data.summary] as const]
        : [],
    );

  beforeAll(async () => {
    cdn = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from(`image bytes of ${req.url}`));
    });
    await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
    h = await startHarness({ PLATFORM_CDN_URL: `http://127.0.0.1:${(cdn.address() as AddressInfo).port}` });
    h.fake.seedGuild({
      ...h.seed,
      emojis: [
        { id: ownerItems.owl, name: 'owl' },
        { id: ownerItems.fox, name: 'fox' },
      ],
    });
    for (const g of [helper, watcher, stranger]) h.fake.seedGuild(g);
    const created = await h.call('POST', `/api/v1/servers/${h.seed.id}/packs`, { body: { name: 'Woods' } });
    packId = created.body.id;
    expect((await add(h.seed.id, [ownerItems.owl, ownerItems.fox])).status).toBe(202);
    expect((await subscribe(watcher.id, false)).body.state).toBe('done');
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => cdn.close(resolve));
  });

  it('when a subscriber sets contributes without the owner consenting, then it can neither add nor order and nothing is copied', async () => {
    expect((await subscribe(helper.id, true)).body.state).toBe('done');
    expect((await packsOf(helper.id)).packs[0]).toMatchObject({ contributes: true, contribution: 'pending' });
    const copiesBefore = h.fake.callsTo('POST', `/guilds/${watcher.id}/emojis`).length;
    const added = await add(helper.id, [helperItems.bee]);
    expect(added.status).toBe(403);
    expect(added.headers.get('content-type')).toContain('application/problem+json');
    expect(added.body.code).toBe('pack_consent');
    expect(added.body.detail).toContain('pending');
    const ordered = await order(helper.id, [ownerItems.fox, ownerItems.owl]);
    expect(ordered.status).toBe(403);
    expect(ordered.body.code).toBe('pack_consent');
    expect(await packItems()).toEqual([ownerItems.owl, ownerItems.fox]);
    expect(h.fake.callsTo('POST', `/guilds/${watcher.id}/emojis`)).toHaveLength(copiesBefore);
    expect(names(watcher.id)).toEqual(['fox', 'owl']);
    const guests = (await packsOf(h.seed.id)).packs[0]?.guests;
    expect(guests?.[0]).toMatchObject({
      guild: helper.id,
      contribution: 'pending',
      subscribed: true,
      contributes: true,
    });
    expect(journaled()).toEqual(
      expect.arrayContaining([
        [helper.id, h.seed.id, expect.stringContaining(`guild ${helper.id} asks to contribute`)],
        [h.seed.id, helper.id, expect.stringContaining(`guild ${helper.id} asks to contribute`)],
      ]),
    );
  });

  it('when the owner approves the request, then the contributor adds (copied into every other subscriber) and orders', async () => {
    const approved = await consent(helper.id, true);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ guild: helper.id, invited: true, contribution: 'granted', subscribed: true });
    const added = await add(helper.id, [helperItems.bee]);
    expect(added.status).toBe(202);
    expect((await ended(helper.id, added.headers.get('location'))).body).toMatchObject({ state: 'done', done: 1 });
    expect(names(watcher.id)).toEqual(['bee', 'fox', 'owl']);
    expect((await order(helper.id, [helperItems.bee, ownerItems.fox, ownerItems.owl])).status).toBe(204);
    expect(await packItems()).toEqual([helperItems.bee, ownerItems.fox, ownerItems.owl]);
    expect((await packsOf(h.seed.id)).packs[0]?.contents[0]).toMatchObject({ id: helperItems.bee, guild: helper.id });
    expect(journaled()).toEqual(
      expect.arrayContaining([
        [h.seed.id, helper.id, expect.stringContaining(`approved guild ${helper.id}'s request`)],
        [helper.id, h.seed.id, expect.stringContaining(`approved guild ${helper.id}'s request`)],
        [h.seed.id, helper.id, expect.stringContaining(`guild ${helper.id} added bee`)],
      ]),
    );
  });

  it('when two requests add the same item at once, then the pack holds it once', async () => {
    const [a, b] = await Promise.all([add(helper.id, [helperItems.ant]), add(helper.id, [helperItems.ant])]);
    expect([a.status, b.status].sort()).toEqual([202, 400]);
    expect((a.status === 400 ? a : b).body.errors).toEqual([
      { field: 'body.ids.0', message: `${helperItems.ant} is already in the pack` },
    ]);
    expect((await packItems()).filter((id) => id === helperItems.ant)).toHaveLength(1);
    await ended(helper.id, (a.status === 202 ? a : b).headers.get('location'));
    expect(names(watcher.id).filter((n) => n === 'ant')).toHaveLength(1);
  });

  it("when the owner removes a contributed item after a preview, then it leaves every subscriber and stays in the contributor's guild", async () => {
    const path = `/api/v1/servers/${h.seed.id}/packs/${packId}/items/remove`;
    const copy = [...(h.fake.guild(watcher.id)?.emojis.values() ?? [])].find((e) => e.name === 'bee')?.id;
    const writes = h.fake.calls.length;
    const preview = await h.call('POST', `${path}?preview=true`, {
      body: { ids: [helperItems.bee, '799999999999999999'] },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      applied: false,
      lines: [
        `Remove emoji :bee: (${helperItems.bee}) from pack Woods (the original stays in guild ${helper.id})`,
        `Delete copy ${copy} of emoji :bee: (${helperItems.bee}) from guild ${watcher.id}`,
      ],
      conflicts: ['799999999999999999: not an item of pack Woods'],
    });
    expect(h.fake.calls.slice(writes).filter((c) => c.method !== 'GET')).toEqual([]);
    expect(await packItems()).toContain(helperItems.bee);
    const byHelper = await h.call('POST', path.replace(h.seed.id, helper.id), {
      ...manage(helper.id),
      body: { ids: [helperItems.bee] },
    });
    expect(byHelper.status).toBe(403);
    expect(byHelper.body.code).toBe('pack_owner');

    const applied = await h.call('POST', path, { body: { ids: [helperItems.bee] } });
    expect(applied.body.applied).toBe(true);
    expect((await ended(h.seed.id, applied.headers.get('location'))).body).toMatchObject({
      kind: 'pack.remove',
      state: 'done',
      failed: [],
    });
    expect(await packItems()).not.toContain(helperItems.bee);
    expect(names(watcher.id)).not.toContain('bee');
    expect(h.fake.guild(helper.id)?.emojis.has(helperItems.bee)).toBe(true);
    expect((await packsOf(helper.id)).loose.map((i) => i.id)).toContain(helperItems.bee);
    expect(journaled()).toEqual(
      expect.arrayContaining([
        [h.seed.id, helper.id, expect.stringContaining('removed bee added by guild')],
        [helper.id, h.seed.id, expect.stringContaining('removed bee added by guild')],
      ]),
    );
    h.fake.assertNoViolations();
  });

  it('when the owner revokes the contributor, then it is refused again until the owner consents anew', async () => {
    const revoked = await consent(helper.id, null);
    expect(revoked.body).toMatchObject({ invited: false, contribution: 'revoked', contributes: false });
    const refused = await add(helper.id, [helperItems.bee]);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('pack_consent');
    expect((await order(helper.id, [...(await packItems())].reverse())).status).toBe(403);
    expect((await subscribe(helper.id, true)).body.state).toBe('done');
    expect((await add(helper.id, [helperItems.bee])).status).toBe(403);
    expect(journaled()).toEqual(
      expect.arrayContaining([[helper.id, h.seed.id, expect.stringContaining(`revoked guild ${helper.id}'s right`)]]),
    );
  });

  it('when a contributor unsubscribes, then its right ends and its items stay in the pack', async () => {
    expect((await consent(helper.id, true)).body.contribution).toBe('granted');
    const res = await h.call('DELETE', `/api/v1/servers/${helper.id}/packs/${packId}/subscription`, manage(helper.id));
    expect(res.status).toBe(200);
    await ended(helper.id, res.headers.get('location'));
    expect(await packItems()).toContain(helperItems.ant);
    const guest = (await packsOf(h.seed.id)).packs[0]?.guests.find((g) => g.guild === helper.id);
    expect(guest).toMatchObject({ contribution: 'none', subscribed: false });
    expect(journaled()).toEqual(
      expect.arrayContaining([[h.seed.id, helper.id, expect.stringContaining('its right to contribute ended')]]),
    );
  });

  it('when the pack is private, then an uninvited guild neither sees nor subscribes to it, and an invited one does', async () => {
    const patch = await h.call('PATCH', `/api/v1/servers/${h.seed.id}/packs/${packId}`, { body: { private: true } });
    expect(patch.status).toBe(204);
    expect((await packsOf(stranger.id)).available.map((p) => p.id)).not.toContain(packId);
    const refused = await h.call('PUT', `/api/v1/servers/${stranger.id}/packs/${packId}/subscription`, {
      ...manage(stranger.id),
      body: { contributes: false },
    });
    expect(refused.status).toBe(404);
    expect(h.fake.callsTo('POST', `/guilds/${stranger.id}/emojis`)).toHaveLength(0);
    expect((await packsOf(watcher.id)).packs[0]).toMatchObject({ pack: packId, private: true });
    const byOther = await h.call('PATCH', `/api/v1/servers/${watcher.id}/packs/${packId}`, {
      ...manage(watcher.id),
      body: { private: false },
    });
    expect(byOther.status).toBe(403);
    expect(byOther.body.code).toBe('pack_owner');

    expect((await consent(stranger.id, false)).body).toMatchObject({ invited: true, contribution: 'none' });
    expect((await packsOf(stranger.id)).available).toContainEqual(
      expect.objectContaining({ id: packId, private: true }),
    );
    expect((await subscribe(stranger.id, false)).body).toMatchObject({ state: 'done', failed: [] });
    expect(names(stranger.id)).toEqual(['ant', 'fox', 'owl']);
  });

  it('when the owner declines a request, then the guild is no contributor and its subscription stops asking', async () => {
    expect((await subscribe(stranger.id, true)).body.state).toBe('done');
    expect((await packsOf(stranger.id)).packs[0]).toMatchObject({ contributes: true, contribution: 'pending' });
    const declined = await consent(stranger.id, false);
    expect(declined.body).toMatchObject({ invited: true, contribution: 'none', contributes: false });
    expect((await packsOf(stranger.id)).packs[0]).toMatchObject({ contributes: false, contribution: 'none' });
    expect((await add(stranger.id, [ownerItems.owl])).body.code).toBe('pack_consent');
    expect(journaled()).toEqual(
      expect.arrayContaining([
        [stranger.id, h.seed.id, expect.stringContaining(`declined guild ${stranger.id}'s request`)],
      ]),
    );
  });
});
