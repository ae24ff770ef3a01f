import { type Harness, startHarness } from './harness';

describe('guild export (community as the aggregator)', () => {
  let h: Harness;
  const closed = 'http://127.0.0.1:9';

  beforeAll(async () => {
    h = await startHarness({
      MODERATION_URL: closed,
      TICKETS_URL: closed,
      LOGS_URL: closed,
      BILLING_URL: closed,
      EXPORT_WINDOW_MS: '60000',
    });
  });
  afterAll(() => h.close());

  it('writes its own part, an error line per unreachable service, an incomplete end, then 429 in the window', async () => {
    const path = `/api/v1/servers/${h.seed.id}/export`;
    const res = await h.call('GET', path, { caps: ['data.export'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const lines = String(res.body)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'export', service: 'community', data: { guild: h.seed.id, format: 1 } });
    expect(lines.filter((l) => l.type === 'staff_role').length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.type === 'error').map((l) => l.service)).toEqual([
      'moderation',
      'tickets',
      'logs',
      'billing',
    ]);
    expect(lines.at(-1)).toEqual({
      type: 'end',
      service: 'community',
      data: { complete: false, records: lines.length - 2 - 4 },
    });

    const again = await h.call('GET', path, { caps: ['data.export'] });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(50);
    const other = await h.call('GET', path, { caps: ['packs.manage'] });
    expect(other.status).toBe(403);
  });
});
