import { newSnowflake } from '@guildhall/shared';
import { ChannelType } from 'discord-api-types/v10';
import type { CommunityContext } from '../src/config';
import { PostModel, type PostRow } from '../src/posts/model';
import { type PlatformThread, trackPost } from '../src/posts/trackPost';
import { type Harness, startHarness } from './harness';

/**
 * A THREAD_CREATE redelivered after the process died half-way through tracking the new post (after storing it,
 * before or after giving it its default status on the platform) ends as one delivery does: the post stored with the
 * forum's first status tag, applied on the platform.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  const status = { reply: '', rewardRole: null, lock: false, archiveAfter: 0 };
  const res = await h.call('PUT', `/api/v1/servers/${h.seed.id}/forums/${h.seed.ids.forum}`, {
    body: { statuses: [{ ...status, tag: h.seed.ids.tags[1] }] },
    caps: ['forums.manage'],
  });
  expect(res.status).toBe(200);
});
afterAll(() => h?.close());

/** A new thread in the managed forum, known to the platform, and its THREAD_CREATE payload. */
function newThread(): PlatformThread {
  const thread = {
    id: newSnowflake(),
    type: ChannelType.PublicThread,
    guild_id: h.seed.id,
    name: 'App crashes on start',
    parent_id: h.seed.ids.forum,
    owner_id: h.seed.ids.member,
    applied_tags: [h.seed.ids.tags[2]],
    thread_metadata: { archived: false, locked: false, auto_archive_duration: 1440, archive_timestamp: '' },
  };
  h.fake.guild(h.seed.id)?.channels.set(thread.id, structuredClone(thread) as never);
  return thread;
}

/** The context with a platform whose thread edit dies once, `after` it was carried out or before. */
function dyingEdit(after: boolean): CommunityContext {
  const live = h.service.ctx as CommunityContext;
  const channels = Object.create(live.platform.channels, {
    edit: {
      value: async (...args: Parameters<typeof live.platform.channels.edit>) => {
        if (after) await live.platform.channels.edit(...args);
        throw new Error('process died');
      },
    },
  });
  return { ...live, platform: Object.create(live.platform, { channels: { value: channels } }) };
}

const outcome = async (thread: PlatformThread) => {
  const post = await PostModel.findById(thread.id).lean<PostRow>();
  const onPlatform = h.fake.guild(h.seed.id)?.channels.get(thread.id) as { applied_tags?: string[] };
  return { stored: post?.tags, pending: post?.statusPending ?? false, platform: onPlatform.applied_tags };
};

it.each([false, true])(
  'a new post redelivered after a crash at its status edit (after: %s) gets its status',
  async (after) => {
    const clean = newThread();
    await trackPost(h.service.ctx as CommunityContext, h.seed.id, clean);
    const expected = {
      stored: [h.seed.ids.tags[2], h.seed.ids.tags[1]],
      pending: false,
      platform: [h.seed.ids.tags[2], h.seed.ids.tags[1]],
    };
    expect(await outcome(clean)).toEqual(expected);

    const thread = newThread();
    await expect(trackPost(dyingEdit(after), h.seed.id, thread)).rejects.toThrow('process died');
    await trackPost(h.service.ctx as CommunityContext, h.seed.id, thread);
    expect(await outcome(thread)).toEqual(expected);
  },
);
