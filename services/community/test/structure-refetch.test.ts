import type { StructureReply } from '@guildhall/shared';
import { startServiceHarness, waitFor } from '@guildhall/testkit';
import { GatewayIntentBits } from 'discord-api-types/v10';
import { GuildItemModel, type GuildItemRow } from '../src/packs/model';
import { definition } from '../src/service';
import { StructureModel, type StructureRow } from '../src/structure/model';
import type { Harness } from './harness';

/**
 * A read that fetches the structure from the platform races the dispatch consumer: a dispatch applied while the
 * platform's answer is on its way must not be undone by storing that (older) answer.
 */
describe('community: a structure fetch that a dispatch overtakes', () => {
  let h: Harness;
  beforeAll(async () => {
    // Every read fetches from the platform (max age 1 ms), and the fake's dispatches reach the consumers as from the bridge.
    h = (await startServiceHarness(definition, {
      env: { STRUCTURE_MAX_AGE_MS: '1' },
      relayDispatches: true,
      caller: { as: 'owner', name: 'Tester' },
    })) as Harness;
  });
  afterAll(() => h.close());

  const readStructure = async () => {
    const res = await h.call('GET', `/api/v1/servers/${h.seed.id}/structure`, { caps: ['structure.read'] });
    expect(res.status).toBe(200);
    return res.body as StructureReply;
  };
  const stored = () => StructureModel.findById(h.seed.id).lean<StructureRow>();
  const guildFetches = () => h.fake.callsTo('GET', '/guilds/{guild_id}').length;

  /** Waits until the stored structure is older than the 1 ms max age, so that the next read fetches. */
  const staleStored = async () => {
    const doc = await stored();
    await waitFor(() => Date.now() - new Date(doc?.fetchedAt ?? 0).getTime() > 1);
  };

  /**
   * Reads the structure while the platform's answer to the fetch's `GET /guilds/{guild}` is held, runs `overtake`
   * (platform changes and their dispatches applied) meanwhile, then lets the answer go. The read's answer, and how
   * many times the read fetched the guild.
   */
  async function readOvertakenBy(overtake: () => Promise<void>) {
    const held = h.fake.holdNextAnswer('GET', '/guilds/{guild_id}');
    const fetchesBefore = guildFetches();
    const reading = readStructure();
    await held.arrived;
    await overtake();
    held.release();
    const answer = await reading;
    return { answer, fetches: guildFetches() - fetchesBefore };
  }

  const storedRoles = async () => (await stored())?.roles.map((r) => r.id);

  it('fetches again when GUILD_CREATE stored the guild while the first fetch was answered', async () => {
    expect(await stored()).toBeNull();
    let role = '';
    const { answer, fetches } = await readOvertakenBy(async () => {
      role = (await h.fake.actAsUser(h.seed.ids.owner).createRole(h.seed.id, { name: 'Night shift' })).id;
      await h.dispatch('GUILD_CREATE', h.fake.guildCreate(h.seed.id, GatewayIntentBits.Guilds));
      await waitFor(storedRoles, (ids) => !!ids?.includes(role));
    });
    expect(answer.roles.map((r) => r.id)).toContain(role);
    expect(await storedRoles()).toContain(role);
    expect(fetches).toBe(2);
  });

  it('fetches again when a role dispatch changed the stored structure while the platform answered', async () => {
    expect(await stored()).not.toBeNull();
    await staleStored();
    let role = '';
    const { answer, fetches } = await readOvertakenBy(async () => {
      role = (await h.fake.actAsUser(h.seed.ids.owner).createRole(h.seed.id, { name: 'Weekend crew' })).id;
      await waitFor(storedRoles, (ids) => !!ids?.includes(role));
    });
    expect(answer.roles.map((r) => r.id)).toContain(role);
    expect(await storedRoles()).toContain(role);
    expect(fetches).toBe(2);
  });

  it('fetches again when an emoji dispatch changed the items while the platform answered', async () => {
    const emoji = '1574871361799716999';
    h.fake.seedGuild({ ...h.seed, emojis: [{ id: emoji, name: 'wave' }] });
    const items = () => GuildItemModel.find({ guild: h.seed.id }).lean<GuildItemRow[]>();
    await staleStored();
    await readStructure();
    expect((await items()).map((i) => i.id)).toEqual([emoji]);
    await staleStored();
    const { fetches } = await readOvertakenBy(async () => {
      const revision = (await stored())?.rev ?? 0;
      await h.fake.actAsUser(h.seed.ids.owner).deleteEmoji(h.seed.id, emoji);
      // the items consumer announced the change (the revision moved) and applied it
      await waitFor(async () => ((await stored())?.rev ?? 0) > revision && (await items()).length === 0);
    });
    expect(await items()).toEqual([]);
    expect(fetches).toBe(2);
  });
});
