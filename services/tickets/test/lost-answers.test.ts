import type { APIMessage } from 'discord-api-types/v10';
import { type Harness, startHarness } from './harness';

/**
 * Posts whose answer is lost on the way back (the platform created the message, the REST client got 502 and
 * retried): each is posted once, as the tickets service's Create Message calls carry a nonce of their work
 * (`postOnce`), and a second transition of the same kind still gets its own notice.
 */
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const CREATE_MESSAGE = '/channels/{channel_id}/messages';
let typeId: string;

beforeAll(async () => {
  h = await startHarness();
  typeId = (await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: false } })).body.id;
  const transcripts = { channel: h.seed.ids.modLog, dmOpener: true };
  expect((await h.call('PUT', `${base()}/transcripts`, { body: transcripts })).status).toBe(200);
});
afterAll(() => h?.close());

const messagesIn = (channel: string): APIMessage[] => h.fake.guild(h.seed.id)!.messages.get(channel) ?? [];
const matching = (channel: string, pattern: RegExp) => messagesIn(channel).filter((m) => pattern.test(m.content));

/** Runs `act` with the answer of its next Create Message lost; checks the platform got the create twice. */
async function withLostAnswer<T>(act: () => Promise<T>): Promise<T> {
  const before = h.fake.callsTo('POST', CREATE_MESSAGE).length;
  h.fake.loseNextAnswer('POST', CREATE_MESSAGE);
  const result = await act();
  const creates = h.fake.callsTo('POST', CREATE_MESSAGE).slice(before);
  expect(creates.slice(0, 2).map((c) => c.status)).toEqual([502, 200]);
  return result;
}

it('posts the panel once when the answer to its post is lost', async () => {
  const posted = await withLostAnswer(() =>
    h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } }),
  );
  expect(posted.status).toBe(200);
  const panels = messagesIn(h.seed.ids.general).filter((m) => m.components?.length);
  expect(panels.map((m) => m.id)).toEqual([posted.body.settings.panelMessage]);
});

it('posts the welcome, the claim, close and reopen notices and the transcripts once each', async () => {
  const lostBefore = h.fake.callsTo('POST', CREATE_MESSAGE).filter((c) => c.status === 502).length;
  const opened = await withLostAnswer(() =>
    h.call('POST', base(), { body: { type: typeId, opener: h.seed.ids.member } }),
  );
  expect(opened.status).toBe(201);
  const { thread, number } = opened.body;
  expect(messagesIn(thread)).toHaveLength(1);
  const act = (action: string) => h.call('POST', `${base()}/${number}/${action}`, { body: {} });
  const transcripts = () => matching(h.seed.ids.modLog, new RegExp(`Transcript of ticket #${number}\\b`));
  const dmsBefore = h.fake.dmsTo(h.seed.ids.member).length;
  const transcriptDms = () => h.fake.dmsTo(h.seed.ids.member).slice(dmsBefore);

  expect((await withLostAnswer(() => act('claim'))).status).toBe(200);
  expect(matching(thread, /claimed this ticket/)).toHaveLength(1);
  expect((await withLostAnswer(() => act('close'))).status).toBe(200);
  expect(matching(thread, /Ticket closed/)).toHaveLength(1);
  expect((await withLostAnswer(() => act('reopen'))).status).toBe(200);
  expect(matching(thread, /Ticket reopened/)).toHaveLength(1);
  expect(transcripts()).toHaveLength(1);
  expect(transcriptDms()).toHaveLength(1);

  // closed again (its own notice and transcripts), the answers of both transcript posts lost
  h.fake.loseNextAnswer('POST', new RegExp(`^/channels/${h.seed.ids.modLog}/messages$`));
  h.fake.loseNextAnswer('POST', new RegExp(`^/channels/(?!${thread}|${h.seed.ids.modLog})\\d+/messages$`));
  expect((await act('close')).status).toBe(200);
  expect(matching(thread, /Ticket closed/)).toHaveLength(2);
  expect(transcripts()).toHaveLength(2);
  expect(transcriptDms()).toHaveLength(2);
  expect(h.fake.callsTo('POST', CREATE_MESSAGE).filter((c) => c.status === 502)).toHaveLength(lostBefore + 6);
  h.fake.assertNoViolations();
});
