/**
 * Consent between guilds on shared emoji/sticker packs, through the gateway with the whole system in processes and the
 * simulator as the platform (issue 29). A subscriber that sets `contributes: true` without the owner's consent can
 * neither add nor order (403 `pack_consent`, nothing copied); once the owner approves it can; the owner removes the
 * contributed item and it leaves every subscriber (a `pack.remove` job); a revoked contributor is refused again; a
 * private pack is neither listed to nor subscribable by an uninvited guild; every consent change is journaled in both
 * guilds.
 */

import { sampleGuild } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, waitFor } from '@guildhall/testkit';
import { type Answer, ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

const coverage = new Coverage();
let sys: System;
let anonymous: ApiClient;
const home = sampleGuild({
  name: 'Owl house',
  emojis: [
    { id: newSnowflake(), name: 'owl' },
    { id: newSnowflake(), name: 'fox' },
  ],
});
const helper = sampleGuild({ name: 'Bee hive', emojis: [{ id: newSnowflake(), name: 'bee' }] });
const watcher = sampleGuild({ name: 'Watchers', emojis: [] });
const stranger = sampleGuild({ name: 'Strangers', emojis: [] });
const [owl, fox] = home.emojis!.map((e) => e.id as string) as [string, string];
const bee = helper.emojis![0]!.id as string;
let owner: ApiClient;
let contributor: ApiClient;
let subscriber: ApiClient;
let outsider: ApiClient;
let pack = '';

async function signIn(user: string): Promise<ApiClient> {
  sys.fake.seedUser({ id: user, username: `user${user.slice(-4)}`, guilds: [] });
  return anonymous.as({ cookie: await sys.login(user), origin: DASHBOARD_ORIGIN });
}

const at = (guild: string, path: string) => `/api/v1/servers/${guild}${path}`;

/** Waits until the job a 202/200 answer's `Location` names has ended; returns it. */
async function jobOf(client: ApiClient, res: Answer) {
  const location = res.headers.get('location');
  expect(location).toBeTruthy();
  const ended = await waitFor(
    () => client.get(location!),
    (r) => r.status === 200 && (r.body.state === 'done' || r.body.state === 'failed'),
    20_000,
  );
  return ended.body;
}

/** The names of the emoji the simulator holds in `guild`, sorted. */
const emojiNames = (guild: string) => [...sys.fake.guild(guild)!.emojis.values()].map((e) => e.name).sort();

/** The owner's view of the pack. */
async function ownerView() {
  const view = expectStatus(await owner.get(at(home.id, '/packs')), 200).body;
  return view.packs.find((p: { pack: string }) => p.pack === pack);
}

beforeAll(async () => {
  sys = await startSystem({ env: { JOB_POLL_MS: '250' } });
  for (const g of [home, helper, watcher, stranger]) sys.fake.seedGuild(g);
  anonymous = new ApiClient(sys.gatewayUrl, coverage);
  owner = await signIn(home.ids.owner);
  contributor = await signIn(helper.ids.owner);
  subscriber = await signIn(watcher.ids.owner);
  outsider = await signIn(stranger.ids.owner);
  // Each guild's items arrive with its GUILD_CREATE (seeded after the system started).
  for (const [client, guild, count] of [
    [owner, home.id, 2],
    [contributor, helper.id, 1],
  ] as const)
    await waitFor(
      () => client.get(at(guild, '/packs')),
      (r) => r.status === 200 && r.body.loose.length === count,
      15_000,
    );
  pack = expectStatus(await owner.post(at(home.id, '/packs'), { name: 'Woods' }), 201).body.id;
  expect(
    (await jobOf(owner, expectStatus(await owner.post(at(home.id, `/packs/${pack}/items`), { ids: [owl, fox] }), 202)))
      .state,
  ).toBe('done');
  const watching = expectStatus(
    await subscriber.put(at(watcher.id, `/packs/${pack}/subscription`), { contributes: false }),
    202,
  );
  expect(await jobOf(subscriber, watching)).toMatchObject({ state: 'done', done: 2 });
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

describe('packs: consent between guilds', () => {
  it('when a subscriber sets contributes: true without the owner consenting, then it can neither add nor order and nothing is copied', async () => {
    const asked = expectStatus(
      await contributor.put(at(helper.id, `/packs/${pack}/subscription`), { contributes: true }),
      202,
    );
    expect((await jobOf(contributor, asked)).state).toBe('done');
    const mine = expectStatus(await contributor.get(at(helper.id, '/packs')), 200).body.packs[0];
    expect(mine).toMatchObject({ pack, contributes: true, contribution: 'pending' });
    const copies = sys.fake.callsTo('POST', `/guilds/${watcher.id}/emojis`).length;

    const added = expectStatus(await contributor.post(at(helper.id, `/packs/${pack}/items`), { ids: [bee] }), 403);
    expect(added.headers.get('content-type')).toContain('application/problem+json');
    expect(added.body.code).toBe('pack_consent');
    expect(added.body.detail).toContain(`guild ${home.id}`);
    const ordered = expectStatus(
      await contributor.put(at(helper.id, `/packs/${pack}/items`), { ids: [fox, owl] }),
      403,
    );
    expect(ordered.body.code).toBe('pack_consent');

    const view = await ownerView();
    expect(view.contents.map((i: { id: string }) => i.id)).toEqual([owl, fox]);
    expect(view.guests).toContainEqual(
      expect.objectContaining({ guild: helper.id, contribution: 'pending', subscribed: true, contributes: true }),
    );
    expect(sys.fake.callsTo('POST', `/guilds/${watcher.id}/emojis`)).toHaveLength(copies);
    expect(emojiNames(watcher.id)).toEqual(['fox', 'owl']);
  });

  it('when the owner approves the request, then the contributor adds (copied into the other subscriber) and orders', async () => {
    const approved = expectStatus(
      await owner.put(at(home.id, `/packs/${pack}/guests/${helper.id}`), { contributor: true }),
      200,
    );
    expect(approved.body).toMatchObject({ guild: helper.id, invited: true, contribution: 'granted' });
    const added = expectStatus(await contributor.post(at(helper.id, `/packs/${pack}/items`), { ids: [bee] }), 202);
    expect(await jobOf(contributor, added)).toMatchObject({ kind: 'pack.add', state: 'done', done: 1, failed: [] });
    expect(emojiNames(watcher.id)).toEqual(['bee', 'fox', 'owl']);
    expectStatus(await contributor.put(at(helper.id, `/packs/${pack}/items`), { ids: [bee, fox, owl] }), 204);
    const view = await ownerView();
    expect(view.contents.map((i: { id: string; guild: string }) => [i.id, i.guild])).toEqual([
      [bee, helper.id],
      [fox, home.id],
      [owl, home.id],
    ]);
  });

  it('when the owner removes the contributed item after a preview, then it leaves every subscriber and the original stays', async () => {
    const remove = at(home.id, `/packs/${pack}/items/remove`);
    const copy = [...sys.fake.guild(watcher.id)!.emojis.values()].find((e) => e.name === 'bee')!.id;
    const preview = expectStatus(await owner.post(`${remove}?preview=true`, { ids: [bee] }), 200);
    expect(preview.body).toEqual({
      applied: false,
      lines: [
        `Remove emoji :bee: (${bee}) from pack Woods (the original stays in guild ${helper.id})`,
        `Delete copy ${copy} of emoji :bee: (${bee}) from guild ${watcher.id}`,
      ],
      conflicts: [],
    });
    expect(emojiNames(watcher.id)).toContain('bee');
    expect(
      expectStatus(await contributor.post(at(helper.id, `/packs/${pack}/items/remove`), { ids: [owl] }), 403).body.code,
    ).toBe('pack_owner');

    const applied = expectStatus(await owner.post(remove, { ids: [bee] }), 200);
    expect(applied.body.applied).toBe(true);
    expect(await jobOf(owner, applied)).toMatchObject({ kind: 'pack.remove', state: 'done', failed: [] });
    expect(emojiNames(watcher.id)).toEqual(['fox', 'owl']);
    expect(sys.fake.guild(helper.id)!.emojis.has(bee)).toBe(true);
    expect((await ownerView()).contents.map((i: { id: string }) => i.id)).toEqual([fox, owl]);
    sys.fake.assertNoViolations();
  });

  it('when the owner revokes the contributor, then it is refused again', async () => {
    const revoked = expectStatus(await owner.send('DELETE', at(home.id, `/packs/${pack}/guests/${helper.id}`)), 200);
    expect(revoked.body).toMatchObject({
      guild: helper.id,
      invited: false,
      contribution: 'revoked',
      contributes: false,
    });
    const copies = sys.fake.callsTo('POST', `/guilds/${watcher.id}/emojis`).length;
    const added = expectStatus(await contributor.post(at(helper.id, `/packs/${pack}/items`), { ids: [bee] }), 403);
    expect(added.body.code).toBe('pack_consent');
    expect(added.body.detail).toContain('revoked');
    expectStatus(await contributor.put(at(helper.id, `/packs/${pack}/items`), { ids: [owl, fox] }), 403);
    expect((await ownerView()).contents.map((i: { id: string }) => i.id)).toEqual([fox, owl]);
    expect(sys.fake.callsTo('POST', `/guilds/${watcher.id}/emojis`)).toHaveLength(copies);
  });

  it('when the pack is private, then an uninvited guild neither sees nor subscribes to it, and an invited one does', async () => {
    expectStatus(await owner.patch(at(home.id, `/packs/${pack}`), { private: true }), 204);
    const seen = expectStatus(await outsider.get(at(stranger.id, '/packs')), 200);
    expect(seen.body.available.map((p: { id: string }) => p.id)).not.toContain(pack);
    expectStatus(await outsider.put(at(stranger.id, `/packs/${pack}/subscription`), { contributes: false }), 404);
    expect(sys.fake.callsTo('POST', `/guilds/${stranger.id}/emojis`)).toHaveLength(0);
    const kept = expectStatus(await subscriber.get(at(watcher.id, '/packs')), 200);
    expect(kept.body.packs[0]).toMatchObject({ pack, private: true });

    expectStatus(await owner.put(at(home.id, `/packs/${pack}/guests/${stranger.id}`), { contributor: false }), 200);
    const invited = expectStatus(await outsider.get(at(stranger.id, '/packs')), 200);
    expect(invited.body.available).toContainEqual(expect.objectContaining({ id: pack, private: true }));
    const joined = expectStatus(
      await outsider.put(at(stranger.id, `/packs/${pack}/subscription`), { contributes: false }),
      202,
    );
    expect(await jobOf(outsider, joined)).toMatchObject({ state: 'done', done: 2 });
    expect(emojiNames(stranger.id)).toEqual(['fox', 'owl']);
  });

  it('when the same item is added five times at once, then it is in the pack once (issue 32)', async () => {
    const birds = expectStatus(await owner.post(at(home.id, '/packs'), { name: 'Birds' }), 201).body.id as string;
    const adds = await Promise.all(
      Array.from({ length: 5 }, () => owner.post(at(home.id, `/packs/${birds}/items`), { ids: [owl] })),
    );
    // one add is accepted; the others lost the race and are refused naming the item (400), none fails
    expect(adds.map((a) => a.status).sort()).toEqual([202, 400, 400, 400, 400]);
    for (const add of adds.filter((a) => a.status === 400)) expect(add.body.errors[0].field).toBe('body.ids.0');
    expect((await jobOf(owner, adds.find((a) => a.status === 202)!)).state).toBe('done');
    const view = expectStatus(await owner.get(at(home.id, '/packs')), 200).body.packs.find(
      (p: { pack: string }) => p.pack === birds,
    );
    expect(view.contents.map((i: { id: string }) => i.id)).toEqual([owl]);
  });

  it('when consent changes, then it is journaled in both guilds naming the other', async () => {
    const journal = (client: ApiClient, guild: string) =>
      waitFor(
        () => client.get(at(guild, '/journal?kind=settings_update&limit=100')),
        (r) =>
          r.status === 200 &&
          ['asks to contribute', 'approved guild', 'removed bee', 'revoked guild'].every((text) =>
            r.body.events.some((e: { data: { summary?: string } }) => e.data.summary?.includes(text)),
          ),
        20_000,
      );
    for (const [client, guild, peer] of [
      [owner, home.id, helper.id],
      [contributor, helper.id, home.id],
    ] as const) {
      const events = (await journal(client, guild)).body.events.filter(
        (e: { data: { peer?: string } }) => e.data.peer === peer,
      );
      expect(events.length).toBeGreaterThanOrEqual(4);
      for (const e of events) {
        expect(e).toMatchObject({ kind: 'settings_update', viaService: true });
        expect([home.ids.owner, helper.ids.owner]).toContain(e.actor);
      }
    }
  });
});
