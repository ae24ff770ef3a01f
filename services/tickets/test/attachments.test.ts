import { randomBytes } from 'node:crypto';
import { ArchivedAttachmentModel, attachmentBucket, sweepExpiredAttachments } from '@guildhall/shared';
import { identityHeaders, type ServiceHarness, startServiceHarness, userIdentity, waitFor } from '@guildhall/testkit';
import type { APIMessage } from 'discord-api-types/v10';
import type { TicketsConfig } from '../src/config';
import { definition } from '../src/service';

const DAY = 86_400_000;
let h: ServiceHarness<TicketsConfig, 'tickets'>;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;

/** GET of an archived ticket attachment with `caps`, bytes kept. */
async function download(attachment: string, caps = ['tickets.read']) {
  const res = await fetch(`${h.service.url}${base()}/attachments/${attachment}`, {
    headers: await identityHeaders(userIdentity(h.seed.ids.support, h.seed.id, caps)),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  h = await startServiceHarness(definition, {
    structure: true,
    caller: { as: 'admin' },
    env: (fake) => ({
      PEER_TIMEOUT_MS: '1000',
      PLATFORM_CDN_URL: fake.cdnUrl,
      ARCHIVE_POLL_MS: '100',
      TICKET_ATTACHMENT_RETENTION_DAYS: '30',
    }),
  });
});
afterAll(async () => {
  await h?.close();
});

it("archives a ticket message's file, links it, and keeps it for the ticket's life plus the retention period", async () => {
  const type = (await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: false } })).body.id;
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
  const opened = await h.call('POST', base(), { body: { type, opener: h.seed.ids.member } });
  expect(opened.status).toBe(201);
  const { number, thread } = opened.body as { number: number; thread: string };

  const log = randomBytes(2048);
  const sent: APIMessage = await h.fake
    .actAsUser(h.seed.ids.member)
    .sendMessage(thread, { content: 'logs attached' }, [
      { name: 'crash log.txt', data: log, contentType: 'text/plain' },
    ]);
  await h.dispatch('MESSAGE_CREATE', { ...sent, guild_id: h.seed.id } as APIMessage & { guild_id: string });
  const attachment = sent.attachments[0]!;
  const path = `${base()}/attachments/${attachment.id}`;
  const shown = await waitFor(
    () => h.call('GET', `${base()}/${number}`),
    (r) => r.body.messages?.some((m: { attachments: string[] }) => m.attachments.includes(path)),
    15_000,
  );
  expect(shown.body.messages.find((m: { id: string }) => m.id === sent.id).attachments).toEqual([path]);

  const file = await download(attachment.id);
  expect(file.status).toBe(200);
  expect(file.bytes.equals(log)).toBe(true);
  expect(file.headers.get('content-type')).toBe('text/plain');
  expect(file.headers.get('content-disposition')).toBe(`inline; filename="crash log.txt"`);
  const etag = file.headers.get('etag')!;
  const again = await fetch(`${h.service.url}${path}`, {
    headers: {
      ...(await identityHeaders(userIdentity(h.seed.ids.support, h.seed.id, ['tickets.read']))),
      'if-none-match': etag,
    },
  });
  expect(again.status).toBe(304);
  expect((await download(attachment.id, ['cases.read'])).status).toBe(403);

  const id = `${h.seed.id}:${attachment.id}`;
  expect((await ArchivedAttachmentModel.findById(id).lean())!.expiresAt).toBeNull();
  expect((await h.call('POST', `${base()}/${number}/close`, { body: {} })).status).toBe(200);
  const closed = await ArchivedAttachmentModel.findById(id).lean();
  const closedAt = (await h.call('GET', `${base()}/${number}`)).body.ticket.closedAt as string;
  expect(closed!.expiresAt!.getTime()).toBe(new Date(closedAt).getTime() + 30 * DAY);

  await sweepExpiredAttachments(new Date(Date.now() + 29 * DAY));
  expect((await download(attachment.id)).status).toBe(200);
  expect((await h.call('POST', `${base()}/${number}/reopen`, { body: {} })).status).toBe(200);
  expect((await ArchivedAttachmentModel.findById(id).lean())!.expiresAt).toBeNull();
  await sweepExpiredAttachments(new Date(Date.now() + 400 * DAY));
  expect((await download(attachment.id)).status).toBe(200);

  expect((await h.call('POST', `${base()}/${number}/close`, { body: {} })).status).toBe(200);
  await sweepExpiredAttachments(new Date(Date.now() + 31 * DAY));
  expect(await ArchivedAttachmentModel.exists({ _id: id })).toBeNull();
  expect(await attachmentBucket().find({ _id: closed!.file! }).toArray()).toEqual([]);
  expect((await download(attachment.id)).status).toBe(404);
});

it('archives a file an edit adds to a ticket message, once, and links and serves it', async () => {
  const type = (await h.call('POST', `${base()}/types`, { body: { name: 'Edits', oneOpen: false } })).body.id;
  const opened = await h.call('POST', base(), { body: { type, opener: h.seed.ids.member } });
  expect(opened.status).toBe(201);
  const { number, thread } = opened.body as { number: number; thread: string };
  const member = h.fake.actAsUser(h.seed.ids.member);
  const sent = await member.sendMessage(thread, { content: 'screenshot coming' });
  await h.dispatch('MESSAGE_CREATE', { ...sent, guild_id: h.seed.id } as APIMessage & { guild_id: string });

  const shot = randomBytes(512);
  const edited = await member.editMessage(thread, sent.id, 'screenshot attached', [
    { name: 'shot.png', data: shot, contentType: 'image/png' },
  ]);
  const update = { ...edited, guild_id: h.seed.id } as APIMessage & { guild_id: string };
  await h.dispatch('MESSAGE_UPDATE', update);
  const attachment = edited.attachments[0]!;
  const path = `${base()}/attachments/${attachment.id}`;
  const shown = await waitFor(
    () => h.call('GET', `${base()}/${number}`),
    (r) => r.body.messages?.some((m: { attachments: string[] }) => m.attachments.includes(path)),
    15_000,
  );
  expect(shown.body.messages.find((m: { id: string }) => m.id === sent.id)).toMatchObject({
    content: 'screenshot attached',
    attachments: [path],
  });
  const file = await download(attachment.id);
  expect(file.status).toBe(200);
  expect(file.bytes.equals(shot)).toBe(true);
  const id = `${h.seed.id}:${attachment.id}`;
  const row = await ArchivedAttachmentModel.findById(id).lean();
  expect(row).toMatchObject({ state: 'stored', message: sent.id, channel: thread, expiresAt: null });

  const resigned = update.attachments.map((a) => ({ ...a, url: a.url.replace(/hm=[0-9a-f]+/, 'hm=resigned') }));
  await h.dispatch('MESSAGE_UPDATE', { ...update, content: 'screenshot attached again', attachments: resigned });
  const again = await waitFor(
    () => h.call('GET', `${base()}/${number}`),
    (r) => r.body.messages?.some((m: { content: string }) => m.content === 'screenshot attached again'),
    15_000,
  );
  expect(again.body.messages.find((m: { id: string }) => m.id === sent.id).attachments).toEqual([path]);
  const transcript = await h.call('GET', `${base()}/${number}/transcript`);
  expect(transcript.body).toContain(`<a href="${path}">shot.png</a>`);
  expect((await ArchivedAttachmentModel.findById(id).lean())!.file).toEqual(row!.file);
  expect(await attachmentBucket().find({ 'metadata.attachment': attachment.id }).toArray()).toHaveLength(1);
});
