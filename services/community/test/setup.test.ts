import { type FeaturesReply, onBehalfReason, RPC } from '@guildhall/shared';
import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import { type Harness, startHarness } from './harness';

interface Setup {
  templates: Array<{
    key: string;
    steps: Array<{
      feature: string;
      input: { places: Record<string, { id: string; name: string }>; gate: boolean; preset: string };
    }>;
  }>;
  features: Array<{ feature: string; state: string; note: string }>;
}

describe('community: setup templates and features', () => {
  let h: Harness;
  /** While set, the logs peer holds its answer until the promise settles (after the request has timed out). */
  let logsSilent: Promise<void> | undefined;
  beforeAll(async () => {
    // Each request waits this long for the silent peers (moderation, billing); an answering peer must make it even
    // on a loaded 2-core machine (300 ms was missed with two jest workers at a load average of 40).
    h = await startHarness({ PEER_TIMEOUT_MS: '1500' });
    h.peer.reply<{ guild: string }, FeaturesReply>(RPC.features('tickets'), async ({ guild }) => ({
      features: [{ feature: 'tickets', state: guild === h.seed.id ? 'on' : 'off', note: 'Panel posted in #support' }],
    }));
    h.peer.reply<{ guild: string }, FeaturesReply>(RPC.features('logs'), async () => {
      await logsSilent;
      return { features: [{ feature: 'logs', state: 'partial', note: 'Only the moderation log is set' }] };
    });
  });
  afterAll(() => h.close());

  const getSetup = async () => {
    const res = await h.call('GET', `/api/v1/servers/${h.seed.id}/setup`, { caps: ['setup.manage'] });
    expect(res.status).toBe(200);
    return res.body as Setup;
  };

  it('lists templates and every feature: peers asked, silent peers noted, community computed locally', async () => {
    const setup = await getSetup();
    expect(setup.templates.map((t) => t.key)).toEqual(['community', 'support', 'gaming']);
    const support = setup.templates.find((t) => t.key === 'support');
    expect(support?.steps.map((s) => s.feature)).toEqual(['tickets', 'forums', 'staff', 'logs']);
    expect(support?.steps[1]?.input).toEqual({
      places: { forum: { id: h.seed.ids.forum, name: 'help' } },
      gate: false,
      preset: 'help-desk',
    });
    expect(support?.steps[0]?.input.places.category).toEqual({ id: '', name: 'Tickets' });
    const byFeature = Object.fromEntries(setup.features.map((f) => [f.feature, f]));
    expect(byFeature.tickets).toEqual({ feature: 'tickets', state: 'on', note: 'Panel posted in #support' });
    expect(byFeature.logs?.state).toBe('partial');
    expect(byFeature.moderation).toMatchObject({
      state: 'off',
      note: 'The moderation service did not answer; state unknown',
    });
    expect(byFeature.premium).toMatchObject({
      state: 'off',
      note: 'The billing service did not answer; state unknown',
    });
    expect(byFeature.forums?.state).toBe('off');
    expect(byFeature.staff?.state).toBe('off');
    expect(byFeature.packs?.state).toBe('off');
  });

  it('keeps the last known state of a peer that stops answering, with a note', async () => {
    let answer = () => {};
    logsSilent = new Promise((resolve) => {
      answer = resolve;
    });
    try {
      const setup = await getSetup();
      const logs = setup.features.find((f) => f.feature === 'logs');
      expect(logs?.state).toBe('partial');
      expect(logs?.note).toMatch(
        /^The logs service did not answer; state as of .+ \(Only the moderation log is set\)$/,
      );
    } finally {
      logsSilent = undefined;
      answer();
    }
  });

  it('reflects community features once configured', async () => {
    await h.call('PUT', `/api/v1/servers/${h.seed.id}/staff/${h.seed.ids.supportRole}`, {
      body: { caps: ['tickets.read'] },
    });
    await h.call('PUT', `/api/v1/servers/${h.seed.id}/forums/${h.seed.ids.forum}`, {
      body: { statuses: [{ tag: h.seed.ids.tags[0], reply: '', rewardRole: null, lock: false, archiveAfter: 0 }] },
    });
    const reply = await h.peer.request<FeaturesReply>(RPC.features('community'), { guild: h.seed.id }, 5_000);
    const byFeature = Object.fromEntries(reply.features.map((f) => [f.feature, f.state]));
    expect(byFeature).toEqual({ forums: 'on', staff: 'on', packs: 'off' });
  });

  it('applies a template: creates the missing channels and roles once, matches existing by name', async () => {
    h.fake.reset();
    const res = await h.call('POST', `/api/v1/servers/${h.seed.id}/setup/support/apply`, { body: {} });
    expect(res.status).toBe(200);
    const applied = res.body as {
      template: string;
      places: Array<{ key: string; id: string; name: string; created: boolean }>;
    };
    expect(applied.template).toBe('support');
    expect(applied.places.map((p) => [p.key, p.name, p.created])).toEqual([
      ['category', 'Tickets', true],
      ['transcripts', 'ticket-transcripts', true],
      ['forum', 'help', false],
      ['support', 'Support Team', true],
      ['moderation', 'mod-log', false],
    ]);
    expect(applied.places.find((p) => p.key === 'forum')?.id).toBe(h.seed.ids.forum);
    const channelCalls = h.fake.callsTo('POST', '/guilds/{guild_id}/channels');
    expect(channelCalls).toHaveLength(2);
    expect(channelCalls[0]?.body).toMatchObject({
      name: 'Tickets',
      type: ChannelType.GuildCategory,
      permission_overwrites: [
        { id: h.seed.id, type: 0, allow: 0, deny: Number(PermissionFlagsBits.ViewChannel) },
        { id: h.seed.ids.botRole, type: 0 },
      ],
    });
    expect(channelCalls[0]?.reason).toBe(
      onBehalfReason({ id: h.seed.ids.owner }, 'Guildhall setup: template Support applied by Tester'),
    );
    expect(h.fake.callsTo('POST', '/guilds/{guild_id}/roles').map((c) => (c.body as { name: string }).name)).toEqual([
      'Support Team',
    ]);
    const names = [...(h.fake.guild(h.seed.id)?.channels.values() ?? [])].map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['Tickets', 'ticket-transcripts']));

    const again = await h.call('POST', `/api/v1/servers/${h.seed.id}/setup/support/apply`);
    const second = again.body as { places: Array<{ id: string; created: boolean }> };
    expect(second.places.every((p) => !p.created)).toBe(true);
    expect(second.places.map((p) => p.id)).toEqual(applied.places.map((p) => p.id));
    expect(h.fake.callsTo('POST', '/guilds/{guild_id}/channels')).toHaveLength(2);
    expect(h.fake.callsTo('POST', '/guilds/{guild_id}/roles')).toHaveLength(1);
    const unknown = await h.call('POST', `/api/v1/servers/${h.seed.id}/setup/nope/apply`);
    expect(unknown.status).toBe(404);
    h.fake.assertNoViolations();
  });
});
