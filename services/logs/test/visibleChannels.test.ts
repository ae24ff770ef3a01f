import { sampleGuild } from '@guildhall/platform-simulator';
import {
  type AccessReply,
  type AccessRequest,
  newSnowflake,
  RPC,
  type VisibleChannelsReply,
  type VisibleChannelsRequest,
} from '@guildhall/shared';
import { accessFromFake, type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { LogsConfig } from '../src/config';
import { definition } from '../src/service';

/** `RPC.visibleChannels`: which channels a reader may see, by the same rule as search, and failing closed. */
const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const staff = newSnowflake();
const privateThread = newSnowflake();
const view = PermissionFlagsBits.ViewChannel.toString();
seed.channels?.push(
  {
    id: staff,
    type: ChannelType.GuildText,
    name: 'staff',
    parent_id: ids.category,
    permission_overwrites: [
      { id: g, type: 0, allow: '0', deny: view },
      { id: ids.moderatorRole, type: 0, allow: view, deny: '0' },
    ],
  },
  { id: privateThread, type: ChannelType.PrivateThread, name: 'dm-ish', parent_id: ids.general, owner_id: ids.member },
);
const unknown = newSnowflake();

let h: ServiceHarness<LogsConfig, 'logs'>;
/** Users community refuses to answer about (its `RPC.access` fails for them). */
const unanswered = new Set<string>();

const visible = (viewer: string, channels = [staff, ids.general, privateThread, unknown]) =>
  h.peer
    .request<VisibleChannelsReply>(
      RPC.visibleChannels,
      { guild: g, viewer, channels } satisfies VisibleChannelsRequest,
      5_000,
    )
    .then((r) => r.visible);

beforeAll(async () => {
  h = await startServiceHarness(definition, { seed, caller: { as: 'admin' } });
  h.peer.reply<AccessRequest, AccessReply>(RPC.access, async ({ guild, user }) => {
    if (unanswered.has(user)) throw new Error('community is down');
    return accessFromFake(h.fake, guild, user);
  });
});
afterAll(() => h?.close());

it('when readers with different permissions ask, then each gets only the channels they can view, never one the platform does not know', async () => {
  expect(await visible(ids.admin)).toEqual([staff, ids.general, privateThread]);
  expect(await visible(ids.moderator)).toEqual([staff, ids.general]);
  expect(await visible(ids.support)).toEqual([ids.general, privateThread]);
  expect(await visible(ids.member)).toEqual([ids.general]);
  expect(await visible(newSnowflake())).toEqual([]);
});

it('when community does not answer about the reader, then no channel is visible', async () => {
  const reader = ids.owner;
  unanswered.add(reader);
  expect(await visible(reader)).toEqual([]);
});

it('when a channel id is not a snowflake, then the request is refused', async () => {
  await expect(visible(ids.admin, ['general'])).rejects.toThrow();
});
