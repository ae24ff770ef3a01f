import { messageCreate } from '@guildhall/platform-simulator';
import { MAX_BLACKLIST, newSnowflake, RPC } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { type GatewayMessageCreateDispatchData, InteractionResponseType, MessageFlags } from 'discord-api-types/v10';
import { type Harness, startHarness } from './harness';

let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const calls = (method: string, route: string) => h.fake.callsTo(method, route);
const callbacks = () => calls('POST', '/interactions/{interaction_id}/{interaction_token}/callback');
const callbackOf = (interaction: { id: string }) =>
  waitFor(() => callbacks().find((c) => c.path.includes(interaction.id)));

let formType: any;
let quickType: any;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('settings and types', () => {
  it('answers defaults for a guild that never configured tickets', async () => {
    const res = await h.call('GET', `${base()}/settings`);
    expect(res.status).toBe(200);
    expect(res.body.types).toEqual([]);
    expect(res.body.settings).toMatchObject({
      guild: h.seed.id,
      panelChannel: null,
      panelMessage: null,
      remindAfter: 0,
      closeAfter: 0,
      blacklist: [],
    });
  });

  it('changes settings and publishes settings.updated with before/after', async () => {
    const res = await h.call('PATCH', `${base()}/settings`, { body: { remindAfter: 24, pingStaff: false } });
    expect(res.status).toBe(200);
    expect(res.body.settings).toMatchObject({ remindAfter: 24, pingStaff: false, closeAfter: 0 });
    const event = await waitFor(() => h.events.find((e) => e.type === 'settings.updated'));
    expect(event.data).toMatchObject({
      actor: h.seed.ids.admin,
      area: 'tickets',
      changes: expect.arrayContaining([
        { field: 'remindAfter', before: 0, after: 24 },
        { field: 'pingStaff', before: true, after: false },
      ]),
    });
    expect((await h.call('PATCH', `${base()}/settings`, { body: {} })).status).toBe(400);
    expect((await h.call('PATCH', `${base()}/settings`, { body: { closeAfter: -1 } })).status).toBe(400);
    expect((await h.call('PATCH', `${base()}/settings`, { body: { pingStaff: true } })).status).toBe(200);
  });

  it('refuses a welcome text that could expand past 2000 characters, naming the field and changing nothing', async () => {
    const before = (await h.call('GET', `${base()}/settings`)).body.settings.welcomeText;
    // 100 x {type} (600 characters) becomes 100 x an 80-character type name.
    for (const welcomeText of ['{type}'.repeat(100), 'a'.repeat(1500)]) {
      const res = await h.call('PATCH', `${base()}/settings`, { body: { welcomeText } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'body.welcomeText' })]);
    }
    expect((await h.call('GET', `${base()}/settings`)).body.settings.welcomeText).toBe(before);
    // 1400 + a 23-character mention + 20 staff mentions (507) = 1930 characters at most.
    const fits = `${'a'.repeat(1400)}{user}`;
    const ok = await h.call('PATCH', `${base()}/settings`, { body: { welcomeText: fits } });
    expect(ok.status).toBe(200);
    expect(ok.body.settings.welcomeText).toBe(fits);
    const reset = await h.call('PATCH', `${base()}/settings`, { body: { welcomeText: before } });
    expect(reset.status).toBe(200);
  });

  it('creates types with staff roles checked against the guild, within the platform bounds', async () => {
    const created = await h.call('POST', `${base()}/types`, {
      body: {
        name: 'Support',
        emoji: '🎫',
        description: 'General help',
        oneOpen: true,
        staffRoles: [h.seed.ids.supportRole],
        questions: [
          { label: 'What happened?', placeholder: 'Describe it', long: true, required: true },
          { label: 'Order id', placeholder: '', long: false, required: false },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Support', emoji: '🎫', staffRoles: [h.seed.ids.supportRole] });
    formType = created.body;
    const quick = await h.call('POST', `${base()}/types`, { body: { name: 'Report', oneOpen: false } });
    expect(quick.status).toBe(201);
    quickType = quick.body;

    const unknownRole = await h.call('POST', `${base()}/types`, { body: { name: 'X', staffRoles: [newSnowflake()] } });
    expect(unknownRole.status).toBe(400);
    expect(unknownRole.body.errors[0].field).toBe('body.staffRoles.0');
    const everyone = await h.call('POST', `${base()}/types`, { body: { name: 'X', staffRoles: [h.seed.id] } });
    expect(everyone.status).toBe(400);
    const managed = await h.call('POST', `${base()}/types`, { body: { name: 'X', staffRoles: [h.seed.ids.botRole] } });
    expect(managed.status).toBe(400);
    const question = { label: 'Q', placeholder: '', long: false, required: false };
    const sixQuestions = await h.call('POST', `${base()}/types`, {
      body: { name: 'X', questions: Array.from({ length: 6 }, () => question) },
    });
    expect(sixQuestions.status).toBe(400);
    const longLabel = await h.call('POST', `${base()}/types`, {
      body: { name: 'X', questions: [{ ...question, label: 'x'.repeat(46) }] },
    });
    expect(longLabel.status).toBe(400);

    const updated = await h.call('PUT', `${base()}/types/${quickType.id}`, {
      body: { name: 'Report a member', oneOpen: false, staffRoles: [h.seed.ids.moderatorRole] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: quickType.id, name: 'Report a member', questions: [] });
    const extra = await h.call('POST', `${base()}/types`, { body: { name: 'Temporary' } });
    expect((await h.call('DELETE', `${base()}/types/${extra.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `${base()}/types/${extra.body.id}`)).status).toBe(404);
    expect((await h.call('PUT', `${base()}/types/${extra.body.id}`, { body: { name: 'Y' } })).status).toBe(404);

    const settings = await h.call('GET', `${base()}/settings`);
    expect(settings.body.types.map((t: { name: string }) => t.name)).toEqual(['Support', 'Report a member']);
  });

  it('needs tickets.manage to change settings', async () => {
    const res = await h.call('PATCH', `${base()}/settings`, { body: { pingStaff: true }, caps: ['tickets.read'] });
    expect(res.status).toBe(403);
    for (const method of ['PUT', 'DELETE']) {
      const one = await h.call(method, `${base()}/blacklist/${h.seed.ids.member}`, { caps: ['tickets.read'] });
      expect(one.status).toBe(403);
    }
  });

  it('blacklists and lets back one member at a time, keeping what others change at the same moment', async () => {
    const blacklist = async (): Promise<string[]> =>
      [...(await h.call('GET', `${base()}/settings`)).body.settings.blacklist].sort();
    const [first, second] = [newSnowflake(), newSnowflake()];
    const added = await h.call('PUT', `${base()}/blacklist/${first}`);
    expect(added.status).toBe(200);
    expect(added.body.settings.blacklist).toEqual([first]);
    expect(added.body.types).toEqual(expect.any(Array));
    const event = await waitFor(() =>
      h.events.find((e) => e.type === 'settings.updated' && e.data.changes.some((c) => c.field === 'blacklist')),
    );
    expect(event.data).toMatchObject({
      actor: h.seed.ids.admin,
      changes: [{ field: 'blacklist', before: [], after: [first] }],
    });
    expect((await h.call('PUT', `${base()}/blacklist/${first}`)).body.settings.blacklist).toEqual([first]);

    // Each change reads nothing first: one staff member removing `first` while another adds `second` keeps both.
    const [removed, addedToo] = await Promise.all([
      h.call('DELETE', `${base()}/blacklist/${first}`),
      h.call('PUT', `${base()}/blacklist/${second}`),
    ]);
    expect([removed.status, addedToo.status]).toEqual([200, 200]);
    expect(await blacklist()).toEqual([second]);
    const many = Array.from({ length: 6 }, () => newSnowflake());
    const answers = await Promise.all(many.map((id) => h.call('PUT', `${base()}/blacklist/${id}`)));
    expect(answers.map((a) => a.status)).toEqual(many.map(() => 200));
    expect(await blacklist()).toEqual([second, ...many].sort());

    const notListed = await h.call('DELETE', `${base()}/blacklist/${first}`);
    expect(notListed.status).toBe(200);
    expect([...notListed.body.settings.blacklist].sort()).toEqual([second, ...many].sort());
    for (const id of [second, ...many]) expect((await h.call('DELETE', `${base()}/blacklist/${id}`)).status).toBe(200);
    expect(await blacklist()).toEqual([]);
  });

  it('refuses a member that is not a user id, naming it and changing nothing', async () => {
    for (const method of ['PUT', 'DELETE']) {
      for (const bad of ['not-a-member', '01', '18446744073709551616']) {
        const res = await h.call(method, `${base()}/blacklist/${bad}`);
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ field: 'params.member' })]);
      }
    }
    expect((await h.call('GET', `${base()}/settings`)).body.settings.blacklist).toEqual([]);
  });

  it(`refuses a blacklist entry past ${MAX_BLACKLIST} members (409), a listed member is still answered`, async () => {
    const full = Array.from({ length: MAX_BLACKLIST }, () => newSnowflake());
    expect((await h.call('PATCH', `${base()}/settings`, { body: { blacklist: full } })).status).toBe(200);
    expect((await h.call('PUT', `${base()}/blacklist/${newSnowflake()}`)).status).toBe(409);
    const again = await h.call('PUT', `${base()}/blacklist/${full[0]}`);
    expect(again.status).toBe(200);
    expect(again.body.settings.blacklist).toHaveLength(MAX_BLACKLIST);
    expect((await h.call('DELETE', `${base()}/blacklist/${full[0]}`)).body.settings.blacklist).toHaveLength(
      MAX_BLACKLIST - 1,
    );
    expect((await h.call('PATCH', `${base()}/settings`, { body: { blacklist: [] } })).status).toBe(200);
  });
});

describe('panel', () => {
  it('refuses a channel that is not a text channel of the guild', async () => {
    for (const channel of [h.seed.ids.forum, h.seed.ids.category, newSnowflake()]) {
      const res = await h.call('POST', `${base()}/panel`, { body: { channel } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe('body.channel');
    }
    expect(calls('POST', '/channels/{channel_id}/messages')).toHaveLength(0);
  });

  it('posts the panel once, edits it on the next call, and posts anew when it was deleted', async () => {
    const first = await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } });
    expect(first.status).toBe(200);
    const posts = calls('POST', '/channels/{channel_id}/messages');
    expect(posts).toHaveLength(1);
    const body = posts[0].body as any;
    expect(body.content).toBe(first.body.settings.panelText);
    expect(body.components).toHaveLength(1);
    expect(body.components[0].components.map((b: any) => b.custom_id)).toEqual([
      `ticket:open:${formType.id}`,
      `ticket:open:${quickType.id}`,
    ]);
    expect(body.components[0].components[0].emoji).toEqual({ name: '🎫' });
    expect(first.body.settings).toMatchObject({ panelChannel: h.seed.ids.general, panelMessage: expect.any(String) });
    const messageId = first.body.settings.panelMessage;

    const second = await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } });
    expect(second.status).toBe(200);
    expect(second.body.settings.panelMessage).toBe(messageId);
    expect(calls('POST', '/channels/{channel_id}/messages')).toHaveLength(1);
    const edits = calls('PATCH', '/channels/{channel_id}/messages/{message_id}');
    expect(edits).toHaveLength(1);
    expect(edits[0].path).toBe(`/channels/${h.seed.ids.general}/messages/${messageId}`);

    const guild = h.fake.guild(h.seed.id)!;
    guild.messages.set(
      h.seed.ids.general,
      (guild.messages.get(h.seed.ids.general) ?? []).filter((m) => m.id !== messageId),
    );
    const third = await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } });
    expect(third.status).toBe(200);
    expect(third.body.settings.panelMessage).not.toBe(messageId);
    expect(calls('POST', '/channels/{channel_id}/messages')).toHaveLength(2);
    h.fake.assertNoViolations();
  });

  it('reports the tickets feature as on once the panel is posted with a type', async () => {
    const reply = await h.peer.request<any>(RPC.features('tickets'), { guild: h.seed.id }, 2000);
    expect(reply.features).toEqual([{ feature: 'tickets', state: 'on', note: expect.any(String) }]);
    const other = await h.peer.request<any>(RPC.features('tickets'), { guild: newSnowflake() }, 2000);
    expect(other.features[0]).toMatchObject({ state: 'off' });
  });
});

describe('opening tickets', () => {
  it('opens from the panel button and the questions modal: private thread, opener added, welcome with answers', async () => {
    const member = h.seed.ids.member;
    const press = h.interaction(member, `ticket:open:${formType.id}`);
    await h.dispatch('INTERACTION_CREATE', press);
    const modal = (await callbackOf(press)).body as any;
    expect(modal.type).toBe(InteractionResponseType.Modal);
    expect(modal.data.custom_id).toBe(`ticket:form:${formType.id}`);
    expect(modal.data.components).toHaveLength(2);
    expect(modal.data.components[0].components[0]).toMatchObject({ label: 'What happened?', style: 2, required: true });

    const submit = h.interaction(member, `ticket:form:${formType.id}`, {
      modal: { 'ticket:answer:0': 'My order never arrived', 'ticket:answer:1': 'A-42' },
    });
    await h.dispatch('INTERACTION_CREATE', submit);
    await h.dispatch('INTERACTION_CREATE', submit);
    const deferred = (await callbackOf(submit)).body as any;
    expect(deferred).toEqual({
      type: InteractionResponseType.DeferredChannelMessageWithSource,
      data: { flags: MessageFlags.Ephemeral },
    });
    const edited = await waitFor(() =>
      calls('PATCH', '/webhooks/{webhook_id}/{webhook_token}/messages/@original').find((c) =>
        c.path.includes(submit.token),
      ),
    );
    expect((edited.body as any).content).toMatch(/#1 is open/);

    const threads = calls('POST', '/channels/{channel_id}/threads');
    expect(threads).toHaveLength(1);
    expect(threads[0].path).toBe(`/channels/${h.seed.ids.general}/threads`);
    expect(threads[0].body).toMatchObject({ type: 12, invitable: false, name: 'ticket-0001' });
    const res = await h.call('GET', `${base()}/1`);
    expect(res.status).toBe(200);
    const thread = res.body.ticket.thread;
    expect(res.body.ticket).toMatchObject({
      number: 1,
      opener: member,
      openerName: 'pat',
      type: formType.id,
      typeName: 'Support',
      status: 'open',
    });
    expect(calls('PUT', '/channels/{channel_id}/thread-members/{user_id}').map((c) => c.path)).toEqual([
      `/channels/${thread}/thread-members/${member}`,
    ]);
    const welcome = calls('POST', '/channels/{channel_id}/messages').find(
      (c) => c.path === `/channels/${thread}/messages`,
    );
    const welcomeBody = welcome!.body as any;
    expect(welcomeBody.content).toContain(`<@${member}>`);
    expect(welcomeBody.content).toContain(`<@&${h.seed.ids.supportRole}>`);
    expect(welcomeBody.allowed_mentions).toEqual({ users: [member], roles: [h.seed.ids.supportRole] });
    expect(welcomeBody.embeds[0].fields).toEqual([
      { name: 'What happened?', value: 'My order never arrived' },
      { name: 'Order id', value: 'A-42' },
    ]);
    expect(res.body.messages).toHaveLength(1);
    expect(res.body.messages[0]).toMatchObject({ bot: true, content: welcomeBody.content });
    expect(h.fake.guild(h.seed.id)!.threadMembers.get(thread)?.has(member)).toBe(true);
    const opened = await waitFor(() => h.events.find((e) => e.type === 'ticket.opened'));
    expect(opened.data).toEqual(res.body.ticket);
  });

  it('enforces oneOpen and the blacklist with an ephemeral answer', async () => {
    const again = h.interaction(h.seed.ids.member, `ticket:open:${formType.id}`);
    await h.dispatch('INTERACTION_CREATE', again);
    const refused = (await callbackOf(again)).body as any;
    expect(refused.type).toBe(InteractionResponseType.ChannelMessageWithSource);
    expect(refused.data.flags).toBe(MessageFlags.Ephemeral);
    expect(refused.data.content).toMatch(/already have an open Support ticket \(#1\)/);

    const dashboard = await h.call('POST', base(), {
      body: { type: formType.id, opener: h.seed.ids.member, answers: ['x'] },
    });
    expect(dashboard.status).toBe(409);

    expect((await h.call('PATCH', `${base()}/settings`, { body: { blacklist: [h.seed.ids.support] } })).status).toBe(
      200,
    );
    const blocked = h.interaction(h.seed.ids.support, `ticket:open:${quickType.id}`);
    await h.dispatch('INTERACTION_CREATE', blocked);
    const blockedAnswer = (await callbackOf(blocked)).body as any;
    expect(blockedAnswer.data).toMatchObject({
      flags: MessageFlags.Ephemeral,
      content: expect.stringMatching(/not allowed/),
    });
    const blockedDashboard = await h.call('POST', base(), { body: { type: quickType.id, opener: h.seed.ids.support } });
    expect(blockedDashboard.status).toBe(409);
    expect(calls('POST', '/channels/{channel_id}/threads')).toHaveLength(1);
  });

  it('numbers tickets per guild: a type without questions opens at once, and from the dashboard', async () => {
    const press = h.interaction(h.seed.ids.moderator, `ticket:open:${quickType.id}`);
    await h.dispatch('INTERACTION_CREATE', press);
    expect(((await callbackOf(press)).body as any).type).toBe(InteractionResponseType.DeferredChannelMessageWithSource);
    const second = await waitFor(async () => {
      const res = await h.call('GET', `${base()}/2`);
      return res.status === 200 && res.body.ticket;
    });
    expect(second).toMatchObject({ opener: h.seed.ids.moderator, type: quickType.id });

    const third = await h.call('POST', base(), { body: { type: quickType.id } });
    expect(third.status).toBe(201);
    expect(third.body).toMatchObject({ number: 3, opener: h.seed.ids.admin, status: 'open' });
    const missingAnswer = await h.call('POST', base(), { body: { type: formType.id, opener: h.seed.ids.owner } });
    expect(missingAnswer.status).toBe(400);
    expect(missingAnswer.body.errors[0].field).toBe('body.answers.0');
    const notMember = await h.call('POST', base(), { body: { type: quickType.id, opener: newSnowflake() } });
    expect(notMember.status).toBe(400);
    h.fake.assertNoViolations();
  });
});

describe('ticket life cycle', () => {
  const act = (n: number, action: string, body?: unknown) => h.call('POST', `${base()}/${n}/${action}`, { body });

  it('allows only legal transitions, with the platform thread locked, archived and reopened', async () => {
    const claimed = await act(1, 'claim', {});
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({
      status: 'claimed',
      claimedBy: h.seed.ids.admin,
      claimedName: expect.any(String),
    });
    expect((await act(1, 'claim')).status).toBe(409);
    expect((await act(1, 'reopen')).status).toBe(409);

    const closed = await act(1, 'close', { reason: 'Refund issued' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: 'closed', closedBy: h.seed.ids.admin, closeReason: 'Refund issued' });
    expect(closed.body.closedAt).toEqual(expect.any(String));
    const thread = closed.body.thread;
    const lock = calls('PATCH', '/channels/{channel_id}').find((c) => c.path === `/channels/${thread}`);
    expect(lock!.body).toEqual({ locked: true, archived: true });
    expect(lock!.reason).toContain('Refund issued');
    expect(h.fake.guild(h.seed.id)!.channels.get(thread)!.thread_metadata).toMatchObject({
      locked: true,
      archived: true,
    });
    expect((await act(1, 'close')).status).toBe(409);
    expect((await act(1, 'claim')).status).toBe(409);

    const reopened = await act(1, 'reopen');
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ status: 'open', closedBy: null, closeReason: null, closedAt: null });
    expect(h.fake.guild(h.seed.id)!.channels.get(thread)!.thread_metadata).toMatchObject({
      locked: false,
      archived: false,
    });
    expect((await act(1, 'reopen')).status).toBe(409);

    expect((await act(3, 'close')).status).toBe(200);
    expect((await act(99, 'close')).status).toBe(404);
    expect((await act(1, 'archive')).status).toBe(400);

    await waitFor(() => h.events.some((e) => e.type === 'ticket.reopened'));
    const kinds = h.events.filter((e) => e.type !== 'settings.updated' && e.data.number === 1).map((e) => e.type);
    expect(kinds).toEqual(['ticket.opened', 'ticket.claimed', 'ticket.closed', 'ticket.reopened']);
  });

  it('lets only one of two concurrent closes win', async () => {
    const results = await Promise.all([act(2, 'close'), act(2, 'close')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('claims and closes from the thread buttons (staff claim, opener close)', async () => {
    const ticket = (await h.call('GET', `${base()}/1`)).body.ticket;
    const nonStaff = h.interaction(h.seed.ids.owner, 'ticket:claim', { channel: ticket.thread, roles: [] });
    await h.dispatch('INTERACTION_CREATE', nonStaff);
    expect(((await callbackOf(nonStaff)).body as any).data.content).toMatch(/Only staff/);

    const staff = h.interaction(h.seed.ids.support, 'ticket:claim', { channel: ticket.thread });
    await h.dispatch('INTERACTION_CREATE', staff);
    await waitFor(async () => (await h.call('GET', `${base()}/1`)).body.ticket.status === 'claimed');
    const opener = h.interaction(h.seed.ids.member, 'ticket:close', { channel: ticket.thread });
    await h.dispatch('INTERACTION_CREATE', opener);
    const closed = await waitFor(async () => {
      const t = (await h.call('GET', `${base()}/1`)).body.ticket;
      return t.status === 'closed' && t;
    });
    expect(closed).toMatchObject({ claimedBy: h.seed.ids.support, closedBy: h.seed.ids.member });
    h.fake.assertNoViolations();
  });
});

describe('ticket messages', () => {
  it('captures the thread messages from dispatches, oldest first, with edits and deletions', async () => {
    const reopened = await h.call('POST', `${base()}/1/reopen`, { body: {} });
    const thread = reopened.body.thread;
    const user = { id: h.seed.ids.member, username: 'pat', discriminator: '0', global_name: 'Pat', avatar: 'abc123' };
    const member = { nick: null, roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 };
    const message = (id: string, content: string, at: Date, extra: Partial<GatewayMessageCreateDispatchData> = {}) =>
      messageCreate({
        id,
        channel_id: thread,
        guild_id: h.seed.id,
        author: user,
        member,
        content,
        timestamp: at.toISOString(),
        ...extra,
      });
    const t0 = Date.now();
    const [a, b, c] = [
      newSnowflake(new Date(t0)),
      newSnowflake(new Date(t0 + 1000)),
      newSnowflake(new Date(t0 + 2000)),
    ];
    await h.dispatch(
      'MESSAGE_CREATE',
      message(a, 'first', new Date(t0), {
        attachments: [
          {
            id: newSnowflake(),
            filename: 'log.txt',
            size: 3,
            url: 'https://cdn.discordapp.com/attachments/1/2/log.txt',
            proxy_url: 'https://media.discordapp.net/x',
          },
        ],
      }),
    );
    await h.dispatch('MESSAGE_CREATE', message(b, 'second', new Date(t0 + 1000)));
    await h.dispatch('MESSAGE_CREATE', message(c, 'third', new Date(t0 + 2000)));
    await h.dispatch('MESSAGE_CREATE', {
      ...message(newSnowflake(), 'elsewhere', new Date()),
      channel_id: h.seed.ids.general,
    });
    await h.dispatch('MESSAGE_UPDATE', {
      ...message(b, 'second (edited)', new Date(t0 + 1000)),
      edited_timestamp: new Date().toISOString(),
    });
    await h.dispatch('MESSAGE_DELETE', { id: c, channel_id: thread, guild_id: h.seed.id });
    await h.dispatch('MESSAGE_CREATE', message(c, 'third', new Date(t0 + 2000)));

    const mine = await waitFor(async () => {
      const res = await h.call('GET', `${base()}/1`);
      const list = res.body.messages.filter((m: any) => !m.bot);
      return list.length === 2 && list[1].content === 'second (edited)' && list;
    });
    expect(mine.map((m: any) => m.id)).toEqual([a, b]);
    expect(mine[0]).toEqual({
      id: a,
      author: h.seed.ids.member,
      authorName: 'Pat',
      avatar: `https://cdn.discordapp.com/avatars/${h.seed.ids.member}/abc123.png`,
      bot: false,
      content: 'first',
      attachments: ['https://cdn.discordapp.com/attachments/1/2/log.txt'],
      at: new Date(t0).toISOString(),
    });
    const all = (await h.call('GET', `${base()}/1`)).body.messages;
    const times = all.map((m: any) => Date.parse(m.at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(all.some((m: any) => m.content === 'elsewhere')).toBe(false);
  });
});

describe('platform refusals and quiet staff', () => {
  let openNumber = 0;

  it('answers 502 and keeps nothing when the platform refuses the thread', async () => {
    const type = await h.call('POST', `${base()}/types`, { body: { name: 'Appeal', oneOpen: true } });
    h.fake.failNext('POST', '/channels/{channel_id}/threads', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    const refused = await h.call('POST', base(), { body: { type: type.body.id, opener: h.seed.ids.owner } });
    expect(refused.status).toBe(502);
    expect(refused.body.detail).toContain('50013');
    const retried = await h.call('POST', base(), { body: { type: type.body.id, opener: h.seed.ids.owner } });
    expect(retried.status).toBe(201);
    openNumber = retried.body.number;
    const gap = await h.call('GET', `${base()}/${retried.body.number - 1}`);
    expect(gap.status).toBe(404);
  });

  it('puts the thread back when locking is refused, and refreshes the panel when types change', async () => {
    const open = (await h.call('GET', `${base()}/${openNumber}`)).body.ticket;
    expect(open.status).toBe('open');
    h.fake.failNext('PATCH', '/channels/{channel_id}', { status: 403, code: 50013, message: 'Missing Permissions' });
    const refused = await h.call('POST', `${base()}/${openNumber}/close`, { body: {} });
    expect(refused.status).toBe(502);
    expect((await h.call('GET', `${base()}/${openNumber}`)).body.ticket).toMatchObject({
      status: 'open',
      closedAt: null,
    });
    const blocked = await h.call('POST', base(), { body: { type: open.type, opener: h.seed.ids.owner } });
    expect(blocked.status).toBe(409);

    const edits = () => calls('PATCH', '/channels/{channel_id}/messages/{message_id}').length;
    const before = edits();
    const created = await h.call('POST', `${base()}/types`, {
      body: { name: 'Partnership', emoji: '<:partner:123456789012345678>' },
    });
    expect(created.status).toBe(201);
    expect(edits()).toBe(before + 1);
    const panel = calls('PATCH', '/channels/{channel_id}/messages/{message_id}').at(-1)!.body as any;
    const buttons = panel.components.flatMap((row: any) => row.components);
    expect(buttons.at(-1)).toMatchObject({
      custom_id: `ticket:open:${created.body.id}`,
      emoji: { id: '123456789012345678', name: 'partner', animated: false },
    });
    const text = await h.call('PATCH', `${base()}/settings`, { body: { panelText: 'Open a ticket below' } });
    expect(text.status).toBe(200);
    const lastEdit = calls('PATCH', '/channels/{channel_id}/messages/{message_id}').at(-1)!;
    expect(lastEdit.path).toBe(`/channels/${h.seed.ids.general}/messages/${text.body.settings.panelMessage}`);
    expect((lastEdit.body as any).content).toBe('Open a ticket below');
  });

  it('adds staff roles without a ping when pingStaff is off (mention added by an edit)', async () => {
    expect((await h.call('PATCH', `${base()}/settings`, { body: { pingStaff: false } })).status).toBe(200);
    const type = await h.call('POST', `${base()}/types`, {
      body: { name: 'Quiet', oneOpen: false, staffRoles: [h.seed.ids.moderatorRole] },
    });
    const opened = await h.call('POST', base(), { body: { type: type.body.id } });
    expect(opened.status).toBe(201);
    const post = calls('POST', '/channels/{channel_id}/messages').find(
      (c) => c.path === `/channels/${opened.body.thread}/messages`,
    )!;
    expect((post.body as any).content).not.toContain('<@&');
    expect((post.body as any).allowed_mentions.roles).toEqual([]);
    const edit = calls('PATCH', '/channels/{channel_id}/messages/{message_id}').find((c) =>
      c.path.startsWith(`/channels/${opened.body.thread}/messages/`),
    )!;
    expect((edit.body as any).content).toContain(`<@&${h.seed.ids.moderatorRole}>`);
    expect((edit.body as any).allowed_mentions.roles).toEqual([h.seed.ids.moderatorRole]);
    h.fake.assertNoViolations();
  });
});
