import { onBehalfReason } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { ChannelType } from 'discord-api-types/v10';
import { applyPostDispatch } from '../src/posts/applyPostDispatch';
import { archiveDuePosts } from '../src/posts/archiveDuePosts';
import { PostModel } from '../src/posts/model';
import { type Harness, startHarness } from './harness';

describe('community: forums and post status', () => {
  let h: Harness;
  const thread = '423456789012345678';
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const forumPath = () => `/api/v1/servers/${h.seed.id}/forums/${h.seed.ids.forum}`;
  const statuses = () => [
    { tag: h.seed.ids.tags[1], reply: '', rewardRole: null, lock: false, archiveAfter: 0 },
    {
      tag: h.seed.ids.tags[0],
      reply: 'Thanks, this bug is fixed!',
      rewardRole: h.seed.ids.supportRole,
      lock: true,
      archiveAfter: 60,
    },
  ];

  it('makes a forum managed with statuses and emits settings.updated', async () => {
    const res = await h.call('PUT', forumPath(), { body: { statuses: statuses() }, caps: ['forums.manage'] });
    expect(res.status).toBe(200);
    const forum = res.body;
    expect(forum).toEqual({
      forum: h.seed.ids.forum,
      name: 'help',
      defaultTag: h.seed.ids.tags[1],
      defaultReaction: null,
      managed: true,
      tags: [
        { id: h.seed.ids.tags[0], name: 'Bug', emoji: '🐛', moderated: false },
        { id: h.seed.ids.tags[1], name: 'Question', emoji: '❓', moderated: false },
        { id: h.seed.ids.tags[2], name: 'Feedback', emoji: '💬', moderated: false },
      ],
      statuses: statuses(),
    });
    const event = await waitFor(async () => h.events.find((e) => e.type === 'settings.updated'));
    expect(event).toMatchObject({
      service: 'community',
      guild: h.seed.id,
      data: { area: 'forum', target: h.seed.ids.forum, actor: h.seed.ids.owner, actorName: 'Tester' },
    });
  });

  it('lists every forum with its tags and statuses', async () => {
    const res = await h.call('GET', `/api/v1/servers/${h.seed.id}/forums`, { caps: ['forums.manage'] });
    expect(res.status).toBe(200);
    const { forums } = res.body as { forums: Array<{ forum: string; managed: boolean; statuses: unknown[] }> };
    expect(forums).toHaveLength(1);
    expect(forums[0]).toMatchObject({ forum: h.seed.ids.forum, name: 'help', managed: true, statuses: statuses() });
    const refused = await h.call('GET', `/api/v1/servers/${h.seed.id}/forums`, { caps: ['posts.manage'] });
    expect(refused.status).toBe(403);
  });

  it('refuses unknown tags, roles the bot cannot give, and channels that are not forums', async () => {
    const badTag = await h.call('PUT', forumPath(), {
      body: { statuses: [{ ...statuses()[0], tag: '999999999999999999' }] },
    });
    expect(badTag.status).toBe(400);
    expect((badTag.body as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('body.statuses.0.tag');
    const highRole = await h.call('PUT', forumPath(), {
      body: { statuses: [{ ...statuses()[0], rewardRole: h.seed.ids.adminRole }] },
    });
    expect(highRole.status).toBe(400);
    const unknownRole = await h.call('PUT', forumPath(), {
      body: { statuses: [{ ...statuses()[0], rewardRole: '999999999999999999' }] },
    });
    expect(unknownRole.status).toBe(400);
    const notForum = await h.call('PUT', `/api/v1/servers/${h.seed.id}/forums/${h.seed.ids.general}`, {
      body: { statuses: [] },
    });
    expect(notForum.status).toBe(404);
    const tooMany = await h.call('PUT', forumPath(), {
      body: { statuses: Array.from({ length: 21 }, () => statuses()[0]) },
    });
    expect(tooMany.status).toBe(400);
  });

  it('tracks a new post from THREAD_CREATE, gives it the first status tag, and counts votes', async () => {
    const guild = h.fake.guild(h.seed.id);
    guild?.channels.set(thread, {
      id: thread,
      type: ChannelType.PublicThread,
      guild_id: h.seed.id,
      name: 'App crashes on start',
      parent_id: h.seed.ids.forum,
      owner_id: h.seed.ids.member,
      applied_tags: [h.seed.ids.tags[2]],
      thread_metadata: {
        archived: false,
        locked: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
      },
    });
    await h.dispatch('THREAD_CREATE', {
      id: thread,
      type: 11,
      guild_id: h.seed.id,
      parent_id: h.seed.ids.forum,
      owner_id: h.seed.ids.member,
      name: 'App crashes on start',
      applied_tags: [h.seed.ids.tags[2]],
      thread_metadata: {
        archived: false,
        locked: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
      },
      newly_created: true,
    });
    const tagged = await waitFor(async () => h.fake.callsTo('PATCH', '/channels/{channel_id}').at(0));
    expect(tagged.path).toBe(`/channels/${thread}`);
    expect(tagged.body).toEqual({ applied_tags: [h.seed.ids.tags[2], h.seed.ids.tags[1]] });
    for (const user of [h.seed.ids.owner, h.seed.ids.admin, h.seed.ids.admin]) {
      await h.dispatch('MESSAGE_REACTION_ADD', {
        user_id: user,
        channel_id: thread,
        message_id: thread,
        guild_id: h.seed.id,
        emoji: { id: null, name: user === h.seed.ids.owner ? '👍' : '🔥' },
        type: 0,
      });
    }
    await h.dispatch('MESSAGE_REACTION_ADD', {
      user_id: h.seed.ids.moderator,
      channel_id: thread,
      message_id: '523456789012345678',
      guild_id: h.seed.id,
      emoji: { id: null, name: '👍' },
      type: 0,
    });
    await h.dispatch('MESSAGE_REACTION_REMOVE', {
      user_id: h.seed.ids.owner,
      channel_id: thread,
      message_id: thread,
      guild_id: h.seed.id,
      emoji: { id: null, name: '👍' },
      type: 0,
    });
    const post = await waitFor(async () => {
      const p = await PostModel.findById(thread).lean();
      return p && p.voters.length === 1 ? p : null;
    });
    expect(post).toMatchObject({
      forum: h.seed.ids.forum,
      author: h.seed.ids.member,
      authorName: 'pat',
      title: 'App crashes on start',
      tags: [h.seed.ids.tags[2], h.seed.ids.tags[1]],
    });
  });

  it('sets a status: tag replaced on the platform, reply posted, reward role given, post locked, event emitted', async () => {
    h.fake.reset();
    const res = await h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/${thread}/status`, {
      body: { tag: h.seed.ids.tags[0] },
      caps: ['posts.manage'],
      as: h.seed.ids.moderator,
    });
    expect(res.status).toBe(200);
    const post = res.body;
    expect(post).toMatchObject({
      thread,
      guild: h.seed.id,
      forum: h.seed.ids.forum,
      author: h.seed.ids.member,
      authorName: 'pat',
      tags: [h.seed.ids.tags[0], h.seed.ids.tags[2]],
      votes: 1,
      archived: false,
      assignee: h.seed.ids.moderator,
      assigneeName: 'Tester',
    });
    const [patch] = h.fake.callsTo('PATCH', '/channels/{channel_id}');
    expect(patch?.body).toEqual({
      applied_tags: [h.seed.ids.tags[0], h.seed.ids.tags[2]],
      archived: false,
      locked: true,
    });
    expect(patch?.reason).toBe(onBehalfReason({ id: h.seed.ids.moderator }, 'Status Bug set by Tester'));
    const [reply] = h.fake.callsTo('POST', '/channels/{channel_id}/messages');
    expect(reply?.path).toBe(`/channels/${thread}/messages`);
    expect(reply?.body).toMatchObject({ content: 'Thanks, this bug is fixed!' });
    const [role] = h.fake.callsTo('PUT', '/guilds/{guild_id}/members/{user_id}/roles/{role_id}');
    expect(role?.path).toBe(`/guilds/${h.seed.id}/members/${h.seed.ids.member}/roles/${h.seed.ids.supportRole}`);
    expect(role?.reason).toBe(onBehalfReason({ id: h.seed.ids.moderator }, 'Status Bug set by Tester'));
    const fakeThread = h.fake.guild(h.seed.id)?.channels.get(thread);
    expect(fakeThread?.applied_tags).toEqual([h.seed.ids.tags[0], h.seed.ids.tags[2]]);
    expect(fakeThread?.thread_metadata?.locked).toBe(true);
    expect(h.fake.guild(h.seed.id)?.members.get(h.seed.ids.member)?.roles).toContain(h.seed.ids.supportRole);
    const event = await waitFor(async () => h.events.find((e) => e.type === 'forum.status'));
    expect(event.data).toEqual({
      thread,
      title: 'App crashes on start',
      forum: h.seed.ids.forum,
      tag: h.seed.ids.tags[0],
      tagName: 'Bug',
      author: h.seed.ids.member,
      actor: h.seed.ids.moderator,
      actorName: 'Tester',
    });
    h.fake.assertNoViolations();
  });

  it('archives the post when its status archive time comes, once', async () => {
    const stored = await PostModel.findById(thread).lean();
    const due = stored?.archiveAt ? new Date(stored.archiveAt).getTime() - Date.now() : 0;
    expect(due).toBeGreaterThan(59 * 60_000);
    expect(due).toBeLessThanOrEqual(60 * 60_000);
    expect(await archiveDuePosts(h.service.ctx)).toBe(0);
    await PostModel.updateOne({ _id: thread }, { $set: { archiveAt: new Date(Date.now() - 1000) } });
    h.fake.reset();
    expect(await archiveDuePosts(h.service.ctx)).toBe(1);
    expect(await archiveDuePosts(h.service.ctx)).toBe(0);
    const calls = h.fake.callsTo('PATCH', '/channels/{channel_id}');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toEqual({ archived: true });
    expect(h.fake.guild(h.seed.id)?.channels.get(thread)?.thread_metadata?.archived).toBe(true);
    expect((await PostModel.findById(thread).lean())?.archived).toBe(true);
  });

  it('archives a due post once when two replicas run the archiver at once, and takes over a dead replica’s claim', async () => {
    const due = { archiveAt: new Date(Date.now() - 1000), archived: false };
    await PostModel.updateOne({ _id: thread }, { $set: due });
    h.fake.reset();
    const counts = await Promise.all([archiveDuePosts(h.service.ctx), archiveDuePosts(h.service.ctx)]);
    expect(counts.sort()).toEqual([0, 1]);
    expect(h.fake.callsTo('PATCH', '/channels/{channel_id}')).toHaveLength(1);
    expect(await PostModel.findById(thread).lean()).toMatchObject({ archived: true, archiveAt: null, lease: null });

    // A replica claimed the post and died before archiving it: nobody touches it while its lease holds, then the
    // next run takes it over.
    const held = { holder: 'dead-replica', until: new Date(Date.now() + 60_000) };
    await PostModel.updateOne({ _id: thread }, { $set: { ...due, lease: held } });
    h.fake.reset();
    expect(await archiveDuePosts(h.service.ctx)).toBe(0);
    expect(h.fake.callsTo('PATCH', '/channels/{channel_id}')).toHaveLength(0);
    await PostModel.updateOne({ _id: thread }, { $set: { 'lease.until': new Date(Date.now() - 1) } });
    expect(await archiveDuePosts(h.service.ctx)).toBe(1);
    expect(h.fake.callsTo('PATCH', '/channels/{channel_id}')).toHaveLength(1);
    expect(await PostModel.findById(thread).lean()).toMatchObject({ archived: true, archiveAt: null, lease: null });
  });

  it('moving back to a status without lock, reply or role unlocks and replaces the status tag only', async () => {
    h.fake.reset();
    const res = await h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/${thread}/status`, {
      body: { tag: h.seed.ids.tags[1] },
    });
    expect(res.status).toBe(200);
    expect((res.body as { tags: string[] }).tags).toEqual([h.seed.ids.tags[1], h.seed.ids.tags[2]]);
    expect(h.fake.callsTo('PATCH', '/channels/{channel_id}')[0]?.body).toEqual({
      applied_tags: [h.seed.ids.tags[1], h.seed.ids.tags[2]],
      archived: false,
      locked: false,
    });
    expect(h.fake.callsTo('POST', '/channels/{channel_id}/messages')).toHaveLength(0);
    expect(h.fake.callsTo('PUT', '/guilds/{guild_id}/members/{user_id}/roles/{role_id}')).toHaveLength(0);
    expect(h.fake.guild(h.seed.id)?.channels.get(thread)?.thread_metadata).toMatchObject({
      archived: false,
      locked: false,
    });
    expect((await PostModel.findById(thread).lean())?.archiveAt).toBeNull();
  });

  it("a dispatch sent before the service's lock does not end it; one after it was seen does", async () => {
    const setStatus = (tag: string) =>
      h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/${thread}/status`, { body: { tag } });
    const threadUpdate = (locked: boolean) =>
      applyPostDispatch(h.service.ctx, {
        op: 0,
        s: 1,
        t: 'THREAD_UPDATE',
        d: {
          id: thread,
          guild_id: h.seed.id,
          parent_id: h.seed.ids.forum,
          type: ChannelType.PublicThread,
          thread_metadata: { archived: false, locked, auto_archive_duration: 1440, archive_timestamp: '' },
        },
      } as unknown as Parameters<typeof applyPostDispatch>[1]);
    expect((await setStatus(h.seed.ids.tags[0])).status).toBe(200);
    expect(await PostModel.findById(thread).lean()).toMatchObject({ serviceLocked: true, serviceLockSeen: false });
    // a late dispatch showing the post unlocked, sent before the lock: the lock stays the service's
    await threadUpdate(false);
    expect(await PostModel.findById(thread).lean()).toMatchObject({ serviceLocked: true });
    await threadUpdate(true);
    expect(await PostModel.findById(thread).lean()).toMatchObject({ serviceLocked: true, serviceLockSeen: true });
    // a status without lock lifts the service's lock
    h.fake.reset();
    expect((await setStatus(h.seed.ids.tags[1])).status).toBe(200);
    expect(h.fake.callsTo('PATCH', '/channels/{channel_id}')[0]?.body).toMatchObject({ locked: false });

    // locked again by a status, seen, then unlocked by someone: the lock is no longer the service's
    expect((await setStatus(h.seed.ids.tags[0])).status).toBe(200);
    await threadUpdate(true);
    await threadUpdate(false);
    expect(await PostModel.findById(thread).lean()).toMatchObject({ serviceLocked: false });
    await threadUpdate(true);
    h.fake.reset();
    expect((await setStatus(h.seed.ids.tags[1])).status).toBe(200);
    expect(h.fake.callsTo('PATCH', '/channels/{channel_id}')[0]?.body).not.toHaveProperty('locked');
  });

  it('posts a status reply once when the answer to its post is lost, and again for a later change to that status', async () => {
    const setStatus = (tag: string) =>
      h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/${thread}/status`, { body: { tag } });
    const replies = () =>
      (h.fake.guild(h.seed.id)?.messages.get(thread) ?? []).filter((m) => m.content === 'Thanks, this bug is fixed!');
    const before = replies().length;
    h.fake.reset();
    h.fake.loseNextAnswer('POST', '/channels/{channel_id}/messages');
    expect((await setStatus(h.seed.ids.tags[0])).status).toBe(200);
    expect(h.fake.callsTo('POST', '/channels/{channel_id}/messages').map((c) => c.status)).toEqual([502, 200]);
    expect(replies()).toHaveLength(before + 1);

    expect((await setStatus(h.seed.ids.tags[1])).status).toBe(200);
    expect((await setStatus(h.seed.ids.tags[0])).status).toBe(200);
    expect(replies()).toHaveLength(before + 2);
    expect((await setStatus(h.seed.ids.tags[1])).status).toBe(200);
    h.fake.assertNoViolations();
  });

  it('refuses a tag that is not a status of the forum and an unknown post', async () => {
    const notStatus = await h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/${thread}/status`, {
      body: { tag: h.seed.ids.tags[2] },
    });
    expect(notStatus.status).toBe(400);
    const unknown = await h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/623456789012345678/status`, {
      body: { tag: h.seed.ids.tags[0] },
    });
    expect(unknown.status).toBe(404);
    const noCap = await h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/${thread}/status`, {
      body: { tag: h.seed.ids.tags[0] },
      caps: ['forums.manage'],
    });
    expect(noCap.status).toBe(403);
  });

  it('lists the forum posts newest first, filtered by archive state and paged by post id', async () => {
    const tracked = await PostModel.findById(thread).lean();
    if (!tracked) throw new Error('the post of the tracking test is missing');
    const older = '323456789012345678';
    await PostModel.create({
      ...tracked,
      _id: older,
      title: 'Older question',
      archived: true,
      createdAt: new Date(new Date(tracked.createdAt).getTime() - 60_000),
    });
    const list = (query = '', caps = ['posts.manage']) =>
      h.call('GET', `/api/v1/servers/${h.seed.id}/forums/${h.seed.ids.forum}/posts${query}`, { caps });
    const all = await list();
    expect(all.status).toBe(200);
    const posts = (all.body as { posts: Array<{ thread: string; title: string; tags: string[] }> }).posts;
    expect(posts.map((p) => p.thread)).toEqual([thread, older]);
    expect(posts[0]).toMatchObject({ title: 'App crashes on start', tags: [h.seed.ids.tags[1], h.seed.ids.tags[2]] });
    const first = (await list('?limit=1')).body as { posts: Array<{ thread: string }> };
    expect(first.posts.map((p) => p.thread)).toEqual([thread]);
    const next = (await list(`?limit=1&before=${thread}`)).body as { posts: Array<{ thread: string }> };
    expect(next.posts.map((p) => p.thread)).toEqual([older]);
    const open = (await list('?archived=false')).body as { posts: Array<{ thread: string }> };
    expect(open.posts.map((p) => p.thread)).toEqual([thread]);
    const notForum = await h.call('GET', `/api/v1/servers/${h.seed.id}/forums/${h.seed.ids.general}/posts`);
    expect(notForum.status).toBe(404);
    const badLimit = await list('?limit=500');
    expect(badLimit.status).toBe(400);
    expect((await list('', ['forums.manage'])).status).toBe(403);
  });
});
