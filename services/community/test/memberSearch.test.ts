import { type Harness, startHarness } from './harness';

/** `GET …/members/search`: members by the start of their username or nickname, through the platform's search. */
describe('community: member search', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const search = (query: string, caps = ['cases.read']) =>
    h.call('GET', `/api/v1/servers/${h.seed.id}/members/search?${query}`, { caps });

  it('answers the members whose username starts with the query, named as people see them, up to the limit', async () => {
    const res = await search('query=OW&limit=5');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      members: [{ id: h.seed.ids.owner, name: 'Guild Owner', username: 'owner', avatar: null }],
    });
    const calls = h.fake.callsTo('GET', '/guilds/{guild_id}/members/search');
    expect(calls.at(-1)?.query).toMatchObject({ query: 'OW', limit: '5' });
    const none = await search('query=zz');
    expect(none.body).toEqual({ members: [] });
  });

  it('refuses a missing or empty query (400 naming it) and a caller without cases.read (403)', async () => {
    const empty = await search('query=%20');
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body)).toContain('query');
    expect((await search('limit=5')).status).toBe(400);
    expect((await search('query=ow', [])).status).toBe(403);
  });
});
