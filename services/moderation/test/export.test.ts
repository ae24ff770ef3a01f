import { IDENTITY_HEADER, signIdentity } from '@guildhall/shared';
import { type Harness, startHarness } from './harness';

describe("moderation's part of a guild export (internal route)", () => {
  let h: Harness;
  let url: string;
  const token = (guild: string, caps: string[]) =>
    signIdentity({ kind: 'user', sub: h.seed.ids.owner, name: 'Owner', guild, caps }, h.env.IDENTITY_SECRET as string);

  beforeAll(async () => {
    h = await startHarness();
    url = `${h.service.url}/internal/v1/servers/${h.seed.id}/export`;
  });
  afterAll(() => h.close());

  it("streams the guild's settings and cases as NDJSON, oldest case first, for a data.export token of that guild", async () => {
    const base = `/api/v1/servers/${h.seed.id}`;
    for (const reason of ['first warning', 'second warning'])
      expect(
        (await h.call('POST', `${base}/cases`, { body: { target: h.seed.ids.member, action: 'warn', reason } })).status,
      ).toBe(201);
    const res = await fetch(url, { headers: { [IDENTITY_HEADER]: await token(h.seed.id, ['data.export']) } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['moderation_settings', 'case_dm_settings', 'case', 'case']);
    expect(lines.every((l) => l.service === 'moderation')).toBe(true);
    expect(lines[0].data).toMatchObject({ guild: h.seed.id });
    expect(lines.slice(2).map((l) => l.data.case.reason)).toEqual(['first warning', 'second warning']);
    expect(lines[2].data.history).toEqual(expect.any(Array));
  });

  it('refuses a missing or invalid token (401), another guild or a token without data.export (403)', async () => {
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { [IDENTITY_HEADER]: 'not-a-token' } })).status).toBe(401);
    const other = await token('123456789012345678', ['data.export']);
    const foreign = await fetch(url, { headers: { [IDENTITY_HEADER]: other } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toMatch(/problem\+json/);
    const noCap = await token(h.seed.id, ['cases.read']);
    expect((await fetch(url, { headers: { [IDENTITY_HEADER]: noCap } })).status).toBe(403);
  });
});
