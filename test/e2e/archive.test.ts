/**
 * End to end, through the gateway: the attachment archive of tickets (issue 15). A member posts an image (and an
 * embed) in a ticket thread; after the ticket is closed, its thread deleted on the platform and the CDN file made
 * unreachable, the transcript and the image are still served by Guildhall, byte for byte; a file over the size cap
 * stays a marked link; a member without `tickets.read` gets 403. The whole system runs as separate processes.
 */
import { randomBytes } from 'node:crypto';
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import type { APIMessage } from 'discord-api-types/v10';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';
import { PLAIN_MEMBER } from './support/securitySetup';

const FILE_CAP = 64 * 1024;
let sys: System;
let owner: ApiClient;
let moderator: ApiClient;
let g: string;

/** GET through the gateway as a signed-in dashboard user, keeping the bytes. */
async function getBytes(cookie: string, path: string) {
  const res = await fetch(`${sys.gatewayUrl}${path}`, {
    headers: { cookie: `service_session=${cookie}`, origin: DASHBOARD_ORIGIN },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

let ownerCookie: string;
let moderatorCookie: string;

beforeAll(async () => {
  sys = await startSystem({ env: { ARCHIVE_FILE_MAX_BYTES: String(FILE_CAP), ARCHIVE_POLL_MS: '200' } });
  g = sys.guild;
  const anonymous = new ApiClient(sys.gatewayUrl, new Coverage());
  ownerCookie = await sys.login(USERS.owner);
  owner = anonymous.as({ cookie: ownerCookie, origin: DASHBOARD_ORIGIN });
  moderatorCookie = await sys.login(USERS.moderator);
  moderator = anonymous.as({ cookie: moderatorCookie, origin: DASHBOARD_ORIGIN });
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

it("serves a closed ticket's transcript and image after the thread and the CDN file are gone", async () => {
  const base = `/api/v1/servers/${g}/tickets`;
  const type = expectStatus(await owner.post(`${base}/types`, { name: 'Archive', oneOpen: false }), 201);
  expectStatus(await owner.post(`${base}/panel`, { channel: FIXTURE_IDS.channels.tickets }), 200);
  const opened = expectStatus(await owner.post(base, { type: type.body.id, opener: PLAIN_MEMBER }), 201);
  const { number, thread } = opened.body as { number: number; thread: string };

  const image = randomBytes(3000);
  const member = sys.fake.actAsUser(PLAIN_MEMBER);
  const sent: APIMessage = await member.sendMessage(
    thread,
    {
      content: 'the error <b>',
      embeds: [
        {
          title: '<Error> report',
          description: 'line one\nline two',
          fields: [{ name: 'Step', value: 'open settings' }],
          author: { name: 'Reporter' },
          footer: { text: 'sent from the app' },
          image: { url: 'https://example.com/shot.png' },
        },
      ],
    },
    [
      { name: 'screenshot.png', data: image, contentType: 'image/png' },
      { name: 'dump.bin', data: randomBytes(FILE_CAP + 1), contentType: 'application/octet-stream' },
    ],
  );
  const [shot, dump] = sent.attachments;
  const shotPath = `${base}/attachments/${shot!.id}`;
  const withLinks = await waitFor(
    () => owner.get(`${base}/${number}`),
    (r) => r.status === 200 && r.body.messages.some((m: { attachments: string[] }) => m.attachments.includes(shotPath)),
    30_000,
  );
  const message = withLinks.body.messages.find((m: { id: string }) => m.id === sent.id);
  expect(message.attachments).toEqual([shotPath, dump!.url]);

  expectStatus(await owner.post(`${base}/${number}/close`, { reason: 'solved' }), 200);
  await sys.fake.actAsUser(USERS.owner).deleteChannel(thread);
  sys.fake.makeUnreachable(shot!.url);
  expect((await fetch(shot!.url)).status).toBe(404);

  const file = await getBytes(ownerCookie, shotPath);
  expect(file.status).toBe(200);
  expect(file.bytes.equals(image)).toBe(true);
  expect(file.headers.get('content-type')).toBe('image/png');
  expect(file.headers.get('content-length')).toBe(String(image.length));
  expect(file.headers.get('content-disposition')).toBe('inline; filename=screenshot.png');
  expect(file.headers.get('cache-control')).toBe('private, max-age=3600');

  const page = expectStatus(await owner.get(`${base}/${number}/transcript`), 200);
  const html = page.body as string;
  expect(html).toContain(`<a href="${shotPath}">screenshot.png</a>`);
  expect(html).toContain(`<img src="${shotPath}"`);
  expect(html).toContain('dump.bin</a> <span class="mark">(not archived: over the size cap)</span>');
  expect(html).toContain('&lt;Error&gt; report');
  expect(html).toContain('line one<br>line two');
  expect(html).toContain('<dt>Step</dt><dd>open settings</dd>');
  expect(html).toContain('Reporter');
  expect(html).toContain('sent from the app');
  expect(html).toContain('<img src="https://example.com/shot.png"');
  expect(html).toContain('the error &lt;b&gt;');
  expect(html).not.toContain('<b>');

  const notArchived = await getBytes(ownerCookie, `${base}/attachments/${dump!.id}`);
  expect(notArchived.status).toBe(404);
  expect(JSON.parse(notArchived.bytes.toString())).toMatchObject({
    code: 'attachment_not_archived',
    reason: 'too_large',
  });

  expectStatus(await moderator.get(shotPath), 403);
  expect((await getBytes(moderatorCookie, shotPath)).bytes.equals(image)).toBe(false);
  expectStatus(await owner.get(`${base}/attachments/1`), 404);
  expectStatus(await owner.get(`${base}/attachments/abc`), 400);
});
