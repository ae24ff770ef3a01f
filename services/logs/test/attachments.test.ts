import { randomBytes } from 'node:crypto';
import { sampleGuild } from '@guildhall/platform-simulator';
import {
  ArchivedAttachmentModel,
  archivePending,
  attachmentBucket,
  newSnowflake,
  queueAttachments,
  RPC,
} from '@guildhall/shared';
import {
  eventually,
  identityHeaders,
  type ServiceHarness,
  startServiceHarness,
  userIdentity,
  waitFor,
} from '@guildhall/testkit';
import { type APIMessage, ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { LogsConfig } from '../src/config';
import { sweepRetention } from '../src/retention/retention';
import { definition } from '../src/service';

const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const staff = newSnowflake();
const view = PermissionFlagsBits.ViewChannel.toString();
seed.channels?.push({
  id: staff,
  type: ChannelType.GuildText,
  name: 'staff',
  parent_id: ids.category,
  permission_overwrites: [
    { id: g, type: 0, allow: '0', deny: view },
    { id: ids.moderatorRole, type: 0, allow: view, deny: '0' },
  ],
});
const DAY = 86_400_000;
const FILE_CAP = 4096;
const GUILD_CAP = 5000;

let h: ServiceHarness<LogsConfig, 'logs'>;

/** Posts a message with files on the platform as `user` and delivers its MESSAGE_CREATE to the service. */
async function post(user: string, channel: string, files: Array<{ name: string; data: Buffer; contentType: string }>) {
  const message = await h.fake.actAsUser(user).sendMessage(channel, { content: 'see attached' }, files);
  await h.dispatch('MESSAGE_CREATE', { ...message, guild_id: g } as APIMessage & { guild_id: string });
  return message;
}

/** GET of an archived attachment as `user` (caps: messages.search), bytes kept. */
async function download(user: string, attachment: string) {
  const res = await fetch(`${h.service.url}/api/v1/servers/${g}/messages/attachments/${attachment}`, {
    headers: await identityHeaders(userIdentity(user, g, ['messages.search'])),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const pathOf = (attachment: string) => `/api/v1/servers/${g}/messages/attachments/${attachment}`;

const stored = (attachment: string) =>
  waitFor(
    () => ArchivedAttachmentModel.findById(`${g}:${attachment}`).lean(),
    (row) => row?.state === 'stored' || row?.state === 'link',
    15_000,
  );

beforeAll(async () => {
  h = await startServiceHarness(definition, {
    seed,
    structure: true,
    env: (fake) => ({
      PLATFORM_CDN_URL: fake.cdnUrl,
      ARCHIVE_POLL_MS: '100',
      ARCHIVE_FILE_MAX_BYTES: String(FILE_CAP),
      ARCHIVE_GUILD_MAX_BYTES: String(GUILD_CAP),
      RETENTION_SWEEP_MS: '3600000',
    }),
  });
});
afterAll(() => h?.close());

describe('archived attachments of logged messages', () => {
  const image = randomBytes(1500);
  let message: APIMessage;

  beforeAll(async () => {
    message = await post(ids.member, ids.general, [{ name: 'proof.png', data: image, contentType: 'image/png' }]);
    await stored(message.attachments[0]!.id);
  });

  it('serves the archived file with its type, length, disposition and cache headers; search links to it', async () => {
    const attachment = message.attachments[0]!;
    const res = await download(ids.member, attachment.id);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(image)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(image.length));
    expect(res.headers.get('content-disposition')).toBe('inline; filename=proof.png');
    expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
    const search = await h.call('GET', `/api/v1/servers/${g}/messages?channel=${ids.general}`, {
      caps: ['messages.search'],
    });
    const found = search.body.messages.find((m: { id: string }) => m.id === message.id);
    expect(found.attachments).toEqual([`/api/v1/servers/${g}/messages/attachments/${attachment.id}`]);
  });

  it("keeps a deleted message's file after the platform drops it, for 7 days and not after", async () => {
    const attachment = message.attachments[0]!;
    await h.fake.actAsUser(ids.member).deleteMessage(ids.general, message.id);
    await h.dispatch('MESSAGE_DELETE', { id: message.id, channel_id: ids.general, guild_id: g });
    expect((await fetch(attachment.url)).status).toBe(404);
    const deleted = await waitFor(
      () => h.call('GET', `/api/v1/servers/${g}/messages?deleted=true`, { caps: ['messages.search'] }),
      (r) => r.body.messages.some((m: { id: string }) => m.id === message.id),
      10_000,
    );
    const found = deleted.body.messages.find((m: { id: string }) => m.id === message.id);
    expect(found.attachments).toEqual([`/api/v1/servers/${g}/messages/attachments/${attachment.id}`]);
    expect((await download(ids.owner, attachment.id)).bytes.equals(image)).toBe(true);

    const row = await ArchivedAttachmentModel.findById(`${g}:${attachment.id}`).lean();
    const sentAt = new Date(row!.expiresAt!).getTime() - 7 * DAY;
    await sweepRetention(90, sentAt + 7 * DAY - 60_000);
    expect((await download(ids.owner, attachment.id)).status).toBe(200);
    await sweepRetention(90, sentAt + 7 * DAY + 1);
    expect(await ArchivedAttachmentModel.exists({ _id: `${g}:${attachment.id}` })).toBeNull();
    expect(await attachmentBucket().find({ _id: row!.file! }).toArray()).toEqual([]);
    expect((await download(ids.owner, attachment.id)).status).toBe(404);
  });

  it("answers 404 to a member who cannot view the message's channel", async () => {
    const secret = await post(ids.moderator, staff, [
      { name: 'notes.txt', data: Buffer.from('staff only'), contentType: 'text/plain' },
    ]);
    const attachment = secret.attachments[0]!;
    await stored(attachment.id);
    expect((await download(ids.moderator, attachment.id)).bytes.toString()).toBe('staff only');
    const denied = await download(ids.member, attachment.id);
    expect(denied.status).toBe(404);
    expect(denied.bytes.toString()).not.toContain('staff only');
    const other = await fetch(`${h.service.url}/api/v1/servers/${g}/messages/attachments/${attachment.id}`, {
      headers: await identityHeaders(userIdentity(ids.moderator, g, ['journal.read'])),
    });
    expect(other.status).toBe(403);
  });

  it('keeps a file over the size cap as a link, marked too_large', async () => {
    const big = await post(ids.member, ids.general, [
      { name: 'big.bin', data: randomBytes(FILE_CAP + 1), contentType: 'application/octet-stream' },
    ]);
    const attachment = big.attachments[0]!;
    const row = await stored(attachment.id);
    expect(row).toMatchObject({ state: 'link', reason: 'too_large', file: null });
    const res = await download(ids.member, attachment.id);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.bytes.toString())).toMatchObject({
      code: 'attachment_not_archived',
      state: 'link',
      reason: 'too_large',
      url: attachment.url,
    });
    await eventually(async () => {
      const search = await h.call('GET', `/api/v1/servers/${g}/messages?channel=${ids.general}`, {
        caps: ['messages.search'],
      });
      const found = search.body.messages.find((m: { id: string }) => m.id === big.id);
      expect(found.attachments).toEqual([attachment.url]);
    });
  });

  it("keeps a file past the guild's quota as a link, marked guild_quota; swept files free their bytes", async () => {
    const first = await post(ids.member, ids.general, [
      { name: 'one.bin', data: randomBytes(4000), contentType: 'application/octet-stream' },
    ]);
    expect(await stored(first.attachments[0]!.id)).toMatchObject({ state: 'stored', bytes: 4000 });
    const second = await post(ids.member, ids.general, [
      { name: 'two.bin', data: randomBytes(4000), contentType: 'application/octet-stream' },
    ]);
    expect(await stored(second.attachments[0]!.id)).toMatchObject({ state: 'link', reason: 'guild_quota' });
    const res = await download(ids.member, second.attachments[0]!.id);
    expect(JSON.parse(res.bytes.toString())).toMatchObject({ code: 'attachment_not_archived', reason: 'guild_quota' });
  });

  it('stores each queued file exactly once while several workers (replicas) run at the same time', async () => {
    const files = Array.from({ length: 4 }, (_, i) => ({
      name: `r${i}.txt`,
      data: Buffer.from(`replica ${i}`),
      contentType: 'text/plain',
    }));
    const message = await h.fake.actAsUser(ids.member).sendMessage(ids.general, { content: 'many' }, files);
    const owner = { guild: g, message: message.id, channel: ids.general, expiresAt: null };
    await queueAttachments([{ owner, attachments: message.attachments }]);
    await Promise.all([1, 2, 3].map(() => archivePending(h.service.ctx)));
    const rows = await Promise.all(message.attachments.map((a) => stored(a.id)));
    expect(rows.map((r) => r?.state)).toEqual(['stored', 'stored', 'stored', 'stored']);
    const gridFiles = await attachmentBucket()
      .find({ 'metadata.attachment': { $in: message.attachments.map((a) => a.id) } })
      .toArray();
    expect(gridFiles).toHaveLength(4);
    for (const [i, a] of message.attachments.entries()) {
      expect((await download(ids.member, a.id)).bytes.toString()).toBe(`replica ${i}`);
    }
  });

  it("shows Guildhall's path in the journal and member record of deleted messages once their files are stored", async () => {
    const file = (name: string) => [{ name, data: Buffer.from(name), contentType: 'text/plain' }];
    const single = await post(ids.member, ids.general, file('single.txt'));
    const bulk = [
      await post(ids.member, ids.general, file('bulk1.txt')),
      await post(ids.member, ids.general, file('bulk2.txt')),
    ];
    const linked = await post(ids.member, ids.general, [
      { name: 'linked.bin', data: randomBytes(FILE_CAP + 1), contentType: 'application/octet-stream' },
    ]);
    for (const m of [single, ...bulk]) expect(await stored(m.attachments[0]!.id)).toMatchObject({ state: 'stored' });
    expect(await stored(linked.attachments[0]!.id)).toMatchObject({ state: 'link' });

    await h.fake.actAsUser(ids.member).deleteMessage(ids.general, single.id);
    await h.dispatch('MESSAGE_DELETE', { id: single.id, channel_id: ids.general, guild_id: g });
    await h.fake.actAsUser(ids.member).deleteMessage(ids.general, linked.id);
    await h.dispatch('MESSAGE_DELETE', { id: linked.id, channel_id: ids.general, guild_id: g });
    const bulkIds = bulk.map((m) => m.id);
    await h.fake
      .actAsUser(ids.owner)
      .request('POST', `/channels/${ids.general}/messages/bulk-delete`, { messages: bulkIds });
    await h.dispatch('MESSAGE_DELETE_BULK', { ids: bulkIds, channel_id: ids.general, guild_id: g });

    type Event = {
      kind: string;
      data: {
        message?: string;
        ids?: string[];
        attachments?: string[];
        messages?: Array<{ id: string; attachments: string[] }>;
      };
    };
    const journal = async () =>
      (await h.call('GET', `/api/v1/servers/${g}/journal?channel=${ids.general}&limit=100`, { caps: ['journal.read'] }))
        .body.events as Event[];
    const deletion = (events: Event[], message: string) =>
      events.find((e) => e.kind === 'message_delete' && e.data.message === message);
    const bulkEvent = (events: Event[]) =>
      events.find((e) => e.kind === 'message_bulk_delete' && e.data.ids?.includes(bulkIds[0]!));
    const events = await waitFor(journal, (ev) => Boolean(deletion(ev, linked.id) && bulkEvent(ev)), 10_000);
    expect(deletion(events, single.id)!.data).toMatchObject({
      content: 'see attached',
      attachments: [pathOf(single.attachments[0]!.id)],
    });
    expect(deletion(events, linked.id)!.data.attachments).toEqual([linked.attachments[0]!.url]);
    expect(
      bulkEvent(events)!.data.messages!.map((m: { id: string; attachments: string[] }) => [m.id, m.attachments]),
    ).toEqual(expect.arrayContaining(bulk.map((m) => [m.id, [pathOf(m.attachments[0]!.id)]])));
    expect((await download(ids.member, single.attachments[0]!.id)).bytes.toString()).toBe('single.txt');

    const history = await h.peer.request<{ events: Event[]; deleted: Array<{ id: string; attachments: string[] }> }>(
      RPC.memberHistory,
      { guild: g, user: ids.member, limit: 100 },
      5_000,
    );
    expect(deletion(history.events, single.id)!.data.attachments).toEqual([pathOf(single.attachments[0]!.id)]);
    expect(history.deleted.find((m) => m.id === single.id)!.attachments).toEqual([pathOf(single.attachments[0]!.id)]);
    expect(history.deleted.find((m) => m.id === linked.id)!.attachments).toEqual([linked.attachments[0]!.url]);
  });

  it('archives a file an edit adds, once, and serves it; search links both files', async () => {
    const first = await post(ids.member, ids.general, [
      { name: 'first.txt', data: Buffer.from('first'), contentType: 'text/plain' },
    ]);
    await stored(first.attachments[0]!.id);
    const edited = await h.fake
      .actAsUser(ids.member)
      .editMessage(ids.general, first.id, 'see attached', [
        { name: 'added.txt', data: Buffer.from('added by an edit'), contentType: 'text/plain' },
      ]);
    expect(edited.attachments.map((a) => a.filename)).toEqual(['first.txt', 'added.txt']);
    const update = { ...edited, guild_id: g } as APIMessage & { guild_id: string };
    await h.dispatch('MESSAGE_UPDATE', update);
    const added = edited.attachments[1]!;
    expect(await stored(added.id)).toMatchObject({ state: 'stored', message: first.id, channel: ids.general });
    const row = await ArchivedAttachmentModel.findById(`${g}:${added.id}`).lean();
    expect(row!.expiresAt!.getTime()).toBe(
      (await ArchivedAttachmentModel.findById(`${g}:${first.attachments[0]!.id}`).lean())!.expiresAt!.getTime(),
    );
    expect((await download(ids.member, added.id)).bytes.toString()).toBe('added by an edit');

    const again = { ...update, content: 'see attached again', edited_timestamp: new Date().toISOString() };
    await h.dispatch('MESSAGE_UPDATE', again);
    await waitFor(
      async () =>
        (await h.call('GET', `/api/v1/servers/${g}/journal?kind=message_edit&limit=100`, { caps: ['journal.read'] }))
          .body.events as Array<{ data: { after: string } }>,
      (events) => events.some((e) => e.data.after === 'see attached again'),
      10_000,
    );
    await eventually(async () => {
      const search = await h.call('GET', `/api/v1/servers/${g}/messages?channel=${ids.general}`, {
        caps: ['messages.search'],
      });
      const found = search.body.messages.find((m: { id: string }) => m.id === first.id);
      expect(found.attachments).toEqual([pathOf(first.attachments[0]!.id), pathOf(added.id)]);
    });
    expect(await ArchivedAttachmentModel.countDocuments({ message: first.id })).toBe(2);
    expect(await attachmentBucket().find({ 'metadata.attachment': added.id }).toArray()).toHaveLength(1);
    expect((await ArchivedAttachmentModel.findById(`${g}:${added.id}`).lean())!.file).toEqual(row!.file);
  });
});
