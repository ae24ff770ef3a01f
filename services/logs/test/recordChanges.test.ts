import { messageCreate, sampleGuild } from '@guildhall/platform-simulator';
import {
  type MemberHistoryReply,
  type MemberHistoryRequest,
  newSnowflake,
  onInvalidation,
  RPC,
  type Stoppable,
} from '@guildhall/shared';
import { type ServiceHarness, startServiceHarness, waitFor } from '@guildhall/testkit';
import type { LogsConfig } from '../src/config';
import { definition } from '../src/service';

/**
 * Logs tells moderation's member-record caches (`cache.invalidate.member-record`) after its writes. The harness's
 * peer bus plays moderation: on each invalidation it reads the member's history at once (`RPC.memberHistory`, as
 * the record does), so a key announced before the write was visible would show in what it read.
 */
const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
let h: ServiceHarness<LogsConfig, 'logs'>;
let following: Stoppable;
/** What the peer read right after each invalidation, by key. */
const seen: Array<{ key: string; history: MemberHistoryReply | null }> = [];

const author = (id: string) => ({
  id,
  username: `u${id.slice(-4)}`,
  global_name: null,
  discriminator: '0',
  avatar: null,
});
const history = (user: string) =>
  h.peer.request<MemberHistoryReply>(
    RPC.memberHistory,
    { guild: g, user, limit: 50 } satisfies MemberHistoryRequest,
    5_000,
  );
const readAfter = (key: string) => seen.filter((s) => s.key === key).map((s) => s.history);

beforeAll(async () => {
  h = await startServiceHarness(definition, { seed, structure: true, caller: { as: 'admin' } });
  following = onInvalidation(
    h.peer,
    'member-record',
    (key) => {
      const [, user] = key.split(':');
      const entry: (typeof seen)[number] = { key, history: null };
      seen.push(entry);
      if (user !== '*')
        void history(user).then((reply) => {
          entry.history = reply;
        });
    },
    h.service.ctx.logger,
  );
});

afterAll(async () => {
  await following?.stop();
  await h?.close();
});

it("announces a member's deleted message after it is marked deleted", async () => {
  const user = newSnowflake();
  const message = newSnowflake();
  await h.dispatch(
    'MESSAGE_CREATE',
    messageCreate({ id: message, channel_id: ids.general, guild_id: g, author: author(user), content: 'soon gone' }),
    1,
  );
  await waitFor(async () => (await h.call('GET', `/api/v1/servers/${g}/messages?q=soon`)).body.messages?.length);
  await h.dispatch('MESSAGE_DELETE', { id: message, channel_id: ids.general, guild_id: g }, 2);
  await waitFor(() => readAfter(`${g}:${user}`).some((r) => r?.deleted.some((m) => m.id === message)));
});

it('announces every author of a bulk deletion after their messages are marked deleted', async () => {
  const [one, two] = [newSnowflake(), newSnowflake()];
  const [first, second] = [newSnowflake(), newSnowflake()];
  await h.dispatch(
    'MESSAGE_CREATE',
    messageCreate({ id: first, channel_id: ids.general, guild_id: g, author: author(one), content: 'bulk a' }),
    3,
  );
  await h.dispatch(
    'MESSAGE_CREATE',
    messageCreate({ id: second, channel_id: ids.general, guild_id: g, author: author(two), content: 'bulk b' }),
    4,
  );
  await waitFor(async () => (await h.call('GET', `/api/v1/servers/${g}/messages?q=bulk`)).body.messages?.length === 2);
  await h.dispatch('MESSAGE_DELETE_BULK', { ids: [first, second], channel_id: ids.general, guild_id: g }, 5);
  await waitFor(() => readAfter(`${g}:${one}`).some((r) => r?.deleted.some((m) => m.id === first)));
  await waitFor(() => readAfter(`${g}:${two}`).some((r) => r?.deleted.some((m) => m.id === second)));
});

it('announces a journal event about a member once it is stored', async () => {
  const joiner = newSnowflake();
  await h.dispatch(
    'GUILD_MEMBER_ADD',
    {
      guild_id: g,
      user: author(joiner),
      roles: [],
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
    },
    6,
  );
  await waitFor(() => readAfter(`${g}:${joiner}`).some((r) => r?.events.some((e) => e.target === joiner)));
});

it("drops every record of the guild after a channel's permissions change", async () => {
  const general = seed.channels?.find((c) => c.id === ids.general);
  await h.dispatch('CHANNEL_UPDATE', { ...general, guild_id: g, permission_overwrites: [] }, 7);
  await waitFor(() => seen.some((s) => s.key === `${g}:*`));
});
