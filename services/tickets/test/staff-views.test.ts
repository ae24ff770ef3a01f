import { messageCreate } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { type Harness, startHarness } from './harness';

let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('ticket list and message paging', () => {
  let type: string;
  let other: string;
  const numbers: number[] = [];

  beforeAll(async () => {
    type = (await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: false } })).body.id;
    other = (await h.call('POST', `${base()}/types`, { body: { name: 'Billing', oneOpen: false } })).body.id;
    expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
    for (const [t, opener] of [
      [type, h.seed.ids.member],
      [other, h.seed.ids.member],
      [type, h.seed.ids.support],
      [type, h.seed.ids.member],
    ] as const) {
      const opened = await h.call('POST', base(), { body: { type: t, opener } });
      expect(opened.status).toBe(201);
      numbers.push(opened.body.number);
    }
    expect((await h.call('POST', `${base()}/${numbers[0]}/claim`, { body: {} })).status).toBe(200);
    expect((await h.call('POST', `${base()}/${numbers[2]}/close`, { body: {} })).status).toBe(200);
  });

  it('lists tickets newest first across pages and filters by status, type, opener and claimer', async () => {
    const first = await h.call('GET', `${base()}?limit=3`);
    expect(first.status).toBe(200);
    expect(first.body.tickets.map((t: { number: number }) => t.number)).toEqual([numbers[3], numbers[2], numbers[1]]);
    expect(first.body.next).toBe(numbers[1]);
    const second = await h.call('GET', `${base()}?limit=3&before=${first.body.next}`);
    expect(second.body).toMatchObject({ next: null });
    expect(second.body.tickets.map((t: { number: number }) => t.number)).toEqual([numbers[0]]);

    const ids = async (query: string) =>
      (await h.call('GET', `${base()}?${query}`)).body.tickets.map((t: { number: number }) => t.number);
    expect(await ids('status=closed')).toEqual([numbers[2]]);
    expect(await ids('status=claimed')).toEqual([numbers[0]]);
    expect(await ids(`claimedBy=${h.seed.ids.admin}`)).toEqual([numbers[0]]);
    expect(await ids(`type=${other}`)).toEqual([numbers[1]]);
    expect(await ids(`opener=${h.seed.ids.member}&type=${type}`)).toEqual([numbers[3], numbers[0]]);
    expect(await ids(`opener=${h.seed.ids.support}&status=open`)).toEqual([]);

    for (const [query, field] of [
      ['status=pending', 'query.status'],
      ['type=xyz', 'query.type'],
      ['opener=abc', 'query.opener'],
      ['before=-1', 'query.before'],
      ['limit=101', 'query.limit'],
      ['owner=1', 'query'],
    ]) {
      const bad = await h.call('GET', `${base()}?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it("pages a ticket's messages oldest first with a next link; without a query returns them all", async () => {
    const ticket = (await h.call('GET', `${base()}/${numbers[3]}`)).body.ticket;
    const author = { id: h.seed.ids.member, username: 'pat', discriminator: '0', global_name: null, avatar: null };
    const t0 = Date.now();
    for (let i = 0; i < 5; i += 1) {
      const at = new Date(t0 + i * 1000);
      await h.dispatch(
        'MESSAGE_CREATE',
        messageCreate({
          id: newSnowflake(at),
          channel_id: ticket.thread,
          guild_id: h.seed.id,
          author,
          content: `m${i}`,
          timestamp: at.toISOString(),
        }),
      );
    }
    const all = await waitFor(
      () => h.call('GET', `${base()}/${numbers[3]}`),
      (r) => r.body.messages.filter((m: { bot: boolean }) => !m.bot).length === 5,
    );
    expect(all.headers.get('link')).toBeNull();
    const contents = all.body.messages.map((m: { content: string }) => m.content);

    const page1 = await h.call('GET', `${base()}/${numbers[3]}?limit=2`);
    expect(page1.body.messages.map((m: { content: string }) => m.content)).toEqual(['m3', 'm4']);
    const link = page1.headers.get('link')!;
    expect(link).toMatch(/rel="next"$/);
    const nextPath = link.slice(1, link.indexOf('>'));
    const page2 = await h.call('GET', nextPath);
    expect(page2.body.messages.map((m: { content: string }) => m.content)).toEqual(['m1', 'm2']);
    const page3 = await h.call('GET', page2.headers.get('link')!.slice(1, page2.headers.get('link')!.indexOf('>')));
    const rest = page3.body.messages.map((m: { content: string }) => m.content);
    expect([...rest, 'm1', 'm2', 'm3', 'm4']).toEqual(contents);
    expect(page3.headers.get('link')).toBeNull();

    const bad = await h.call('GET', `${base()}/${numbers[3]}?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['query.limit']);
    const unknownCursor = await h.call('GET', `${base()}/${numbers[3]}?before=${newSnowflake()}`);
    expect(unknownCursor.status).toBe(404);
  });
});

describe('transcripts', () => {
  it('posts the HTML transcript to the transcript channel and DMs it to the opener on close; serves it as HTML', async () => {
    const settings = `${base()}/transcripts`;
    expect((await h.call('GET', settings)).body).toEqual({ guild: h.seed.id, channel: null, dmOpener: true });
    const bad = await h.call('PUT', settings, { body: { channel: h.seed.ids.category, dmOpener: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['body.channel']);
    const put = await h.call('PUT', settings, { body: { channel: h.seed.ids.modLog, dmOpener: true } });
    expect(put.body).toEqual({ guild: h.seed.id, channel: h.seed.ids.modLog, dmOpener: true });

    const type = (await h.call('POST', `${base()}/types`, { body: { name: 'Transcripts', oneOpen: false } })).body.id;
    const opened = await h.call('POST', base(), { body: { type, opener: h.seed.ids.member } });
    const author = { id: h.seed.ids.member, username: 'pat', discriminator: '0', global_name: null, avatar: null };
    const at = new Date();
    await h.dispatch(
      'MESSAGE_CREATE',
      messageCreate({
        id: newSnowflake(at),
        channel_id: opened.body.thread,
        guild_id: h.seed.id,
        author,
        content: 'my <b>order</b> is late',
        timestamp: at.toISOString(),
      }),
    );
    await waitFor(
      () => h.call('GET', `${base()}/${opened.body.number}`),
      (r) => r.body.messages.some((m: { content: string }) => m.content.includes('order')),
    );
    expect((await h.call('POST', `${base()}/${opened.body.number}/close`, { body: { reason: 'solved' } })).status).toBe(
      200,
    );
    const fileName = `ticket-${opened.body.number}.html`;
    const posted = h.fake.guild(h.seed.id)!.messages.get(h.seed.ids.modLog)!.slice(-1)[0]!;
    expect(posted.content).toContain(`#${opened.body.number}`);
    expect(posted.attachments.map((a) => a.filename)).toEqual([fileName]);
    const dm = h.fake.dmsTo(h.seed.ids.member).slice(-1)[0]!;
    expect(dm.attachments.map((a) => a.filename)).toEqual([fileName]);

    const page = await h.call('GET', `${base()}/${opened.body.number}/transcript`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toContain(`Ticket #${opened.body.number} (Transcripts)`);
    expect(page.body).toContain('my &lt;b&gt;order&lt;/b&gt; is late');
    expect(page.body).toContain('solved');
    expect((await h.call('GET', `${base()}/99999/transcript`)).status).toBe(404);
    h.fake.assertNoViolations();
  });
});
