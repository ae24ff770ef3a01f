import { type ApiRoute, apiRoutes } from '@guildhall/shared';
import { STAFF_AUDIENCE, STAFF_ISSUER, STRIPE_SECRET, type System, startSystem } from '@guildhall/testkit';
import { generateKeyPair, SignJWT } from 'jose';
import Stripe from 'stripe';
import type { Answer, ApiClient } from './support/client';
import { Coverage } from './support/coverage';
import { isUnsafe, pathOf, sampleBody, sampleQuery } from './support/securityCases';
import { type MatrixCell, type MatrixRow, matrixFailures, matrixTable } from './support/securityMatrix';
import { MODERATOR_CAP, prepareSecurityWorld, type SecurityWorld } from './support/securitySetup';
import { guildSnapshot, settledSnapshot, touchesGuild, writeCalls } from './support/securitySnapshot';

let sys: System;
let world: SecurityWorld;
const coverage = new Coverage();

beforeAll(async () => {
  sys = await startSystem({ day: 'play', env: { RATE_LIMIT_PER_USER: '100000', RATE_LIMIT_PER_IP: '100000' } });
  world = await prepareSecurityWorld(sys, coverage);
}, 180_000);
afterAll(async () => {
  await sys?.stop();
});

/** Staff tokens that must not pass: unsigned by the configured key, expired, for another audience or issuer. */
async function badStaffTokens(): Promise<Record<string, string>> {
  const stranger = await generateKeyPair('RS256');
  const forged = await new SignJWT({ staff: true, username: 'mallory' })
    .setProtectedHeader({ alg: 'RS256', kid: 'staff-1' })
    .setSubject('7d9f2c1e-4b7a-4c11-9a51-3f0b6f2d8e10')
    .setIssuer(STAFF_ISSUER)
    .setAudience(STAFF_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(stranger.privateKey);
  return {
    forged,
    expired: await sys.staffToken({}, { expiresIn: '2h ago' }),
    audience: await sys.staffToken({}, { audience: 'another-api' }),
    issuer: await sys.staffToken({}, { issuer: 'https://evil.example' }),
  };
}

function stripeHeader(payload: string, secret = STRIPE_SECRET): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret });
}

/** One request of the matrix: `client` calls the route with its real path, minimal query and body. */
function call(route: ApiRoute, client: ApiClient): Promise<Answer> {
  const path = pathOf(route, world.ids) + sampleQuery(route);
  return client.send(route.method.toUpperCase(), path, sampleBody(route, world.ids));
}

/** The cells of callers that must be refused (401/403), per auth kind. Nothing here may change state. */
async function deniedCells(route: ApiRoute, bad: Record<string, string>): Promise<MatrixCell[]> {
  const { anonymous, owner, moderator, member, outsider } = world.callers;
  const cell = async (caller: string, expected: MatrixCell['expected'], answer: Promise<Answer>) => ({
    caller,
    expected,
    status: (await answer).status,
  });
  if (route.auth === 'guild') {
    const cells = [
      await cell('anonymous', '401', call(route, anonymous)),
      await cell('outsider', '403', call(route, outsider)),
      await cell('member', '403', call(route, member)),
    ];
    if (route.cap !== MODERATOR_CAP) cells.push(await cell('lacks-cap', '403', call(route, moderator)));
    if (isUnsafe(route))
      cells.push(await cell('no-origin', '403', call(route, anonymous.as({ cookie: world.ownerSession }))));
    return cells;
  }
  if (route.auth === 'member') {
    return [
      await cell('anonymous', '401', call(route, anonymous)),
      await cell('outsider', '403', call(route, outsider)),
      await cell('lacks-cap', '403', call(route, moderator)),
    ];
  }
  if (route.auth === 'staff') {
    const bearer = (token: string) => anonymous.as({ bearer: token });
    return [
      await cell('anonymous', '401', call(route, anonymous)),
      await cell('session', '401', call(route, owner)),
      await cell('forged', '401', call(route, bearer(bad.forged!))),
      await cell('expired', '401', call(route, bearer(bad.expired!))),
      await cell('audience', '401', call(route, bearer(bad.audience!))),
      await cell('issuer', '401', call(route, bearer(bad.issuer!))),
      await cell('not-staff', '403', call(route, bearer(await sys.staffToken({ staff: false })))),
    ];
  }
  const path = pathOf(route, world.ids);
  const payload = JSON.stringify({ id: 'evt_security_denied', object: 'event', type: 'customer.created', created: 1 });
  return [
    await cell('anonymous', '401', anonymous.raw(path, payload, { 'content-type': 'application/json' })),
    await cell(
      'forged',
      '401',
      anonymous.raw(path, payload, {
        'content-type': 'application/json',
        'stripe-signature': stripeHeader(payload, 'whsec_wrong'),
      }),
    ),
    await cell(
      'session',
      '401',
      anonymous.raw(path, payload, {
        'content-type': 'application/json',
        cookie: `service_session=${world.ownerSession}`,
        'stripe-signature': 't=1,v1=00',
      }),
    ),
  ];
}

/** The right caller's cell: the owner (guild), the case's member (member), staff (staff), a signed webhook. */
async function allowedCell(route: ApiRoute): Promise<MatrixCell> {
  const { owner, member, staff, anonymous } = world.callers;
  let answer: Answer;
  if (route.auth === 'webhook') {
    const payload = JSON.stringify({
      id: `evt_security_${Date.now()}`,
      object: 'event',
      type: 'customer.created',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'cus_security', object: 'customer' } },
    });
    answer = await anonymous.raw(pathOf(route, world.ids), payload, {
      'content-type': 'application/json',
      'stripe-signature': stripeHeader(payload),
    });
  } else {
    answer = await call(route, route.auth === 'guild' ? owner : route.auth === 'member' ? member : staff);
  }
  return { caller: 'right', expected: 'allowed', status: answer.status };
}

describe('authorization matrix over every contract route', () => {
  it('refuses every wrong caller without changing anything, and lets the right caller through', async () => {
    const bad = await badStaffTokens();
    const rows: MatrixRow[] = apiRoutes.map((route) => ({ route, cells: [] }));
    const before = await settledSnapshot(sys, world.callers.owner, sys.guild, [world.ids.member]);
    const writesBefore = sys.fake.calls.length;
    for (const row of rows) row.cells.push(...(await deniedCells(row.route, bad)));
    expect(writeCalls(sys.fake, writesBefore)).toEqual([]);
    expect(await guildSnapshot(world.callers.owner, sys.guild, [world.ids.member])).toEqual(before);
    for (const row of rows) {
      if (row.route.auth === 'member' || row.route.cap === MODERATOR_CAP) {
        row.cells.push({ caller: 'moderator', expected: row.route.auth === 'member' ? '403' : 'allowed', status: 0 });
        const answer = await call(row.route, world.callers.moderator);
        row.cells[row.cells.length - 1]!.status = answer.status;
      }
      row.cells.push(await allowedCell(row.route));
    }
    console.log(
      `Authorization matrix (status per caller; ! = unexpected). right: owner (guild), the case's member (member), ` +
        `staff token (staff), signed webhook; lacks-cap: moderator whose role has only ${MODERATOR_CAP}\n${matrixTable(rows)}`,
    );
    expect(matrixFailures(rows)).toEqual([]);
    expect(rows).toHaveLength(apiRoutes.length);
    sys.fake.assertNoViolations();
  }, 120_000);
});

describe('cross-guild identifiers', () => {
  it('ids of the other guild used under the fixture guild (and vice versa) leak nothing and change nothing', async () => {
    const { owner, outsider } = world.callers;
    const { other, ids } = world;
    const g = `/api/v1/servers/${sys.guild}`;
    const o = `/api/v1/servers/${other.guild}`;
    const otherCases: number[] = [];
    for (const reason of ['other guild case one', 'other guild case two', 'other guild case three']) {
      const res = await outsider.post(`${o}/cases`, { target: other.member, action: 'warn', reason });
      expect(res.status).toBe(201);
      otherCases.push(res.body.number);
    }
    const foreignNumber = Math.max(...otherCases);
    const otherBefore = await settledSnapshot(sys, outsider, other.guild, [other.member]);
    const fixtureBefore = await settledSnapshot(sys, owner, sys.guild, [ids.member]);
    const mark = sys.fake.calls.length;

    const ownerTries: Array<[string, Promise<Answer>, number[]]> = [
      [
        'edit a case number only the other guild has',
        owner.patch(`${g}/cases/${foreignNumber + 100}`, { reason: 'hijack' }),
        [404],
      ],
      ['revoke a foreign case number', owner.post(`${g}/cases/${foreignNumber + 100}/revoke`, {}), [404]],
      ['staff caps on a foreign role', owner.put(`${g}/staff/${other.role}`, { caps: ['cases.read'] }), [404]],
      ['manage a foreign forum', owner.put(`${g}/forums/${other.forum}`, { statuses: [] }), [404]],
      [
        'status of a foreign channel as a post',
        owner.put(`${g}/posts/${other.forum}/status`, { tag: other.tag }),
        [404],
      ],
      [
        'foreign tag on the fixture forum',
        owner.put(`${g}/forums/${ids.forum}`, {
          statuses: [{ tag: other.tag, reply: 'x', rewardRole: null, lock: false, archiveAfter: 0 }],
        }),
        [400],
      ],
      [
        'foreign reward role',
        owner.put(`${g}/forums/${ids.forum}`, {
          statuses: [{ tag: ids.tag, reply: 'x', rewardRole: other.role, lock: false, archiveAfter: 0 }],
        }),
        [400],
      ],
      [
        'foreign appeals channel',
        owner.put(`${g}/moderation/settings`, { appealsChannel: other.textChannel, reportsChannel: null }),
        [400],
      ],
      [
        'foreign log channel',
        owner.put(`${g}/logs`, { ignoredChannels: [], ignoreBots: false, messagesChannel: other.textChannel }),
        [400],
      ],
      [
        'foreign ignored channel',
        owner.put(`${g}/logs`, { ignoredChannels: [other.textChannel], ignoreBots: false }),
        [400],
      ],
      ['panel in a foreign channel', owner.post(`${g}/tickets/panel`, { channel: other.textChannel }), [400]],
      [
        'foreign staff role on a ticket type',
        owner.post(`${g}/tickets/types`, { name: 'Foreign', staffRoles: [other.role] }),
        [400],
      ],
      ['ticket for a foreign member', owner.post(`${g}/tickets`, { type: ids.ticketType, opener: other.owner }), [400]],
    ];
    const outsiderTries: Array<[string, Promise<Answer>, number[]]> = [
      ['read a fixture ticket', outsider.get(`${o}/tickets/${ids.ticketNumber}`), [404]],
      ['close a fixture ticket', outsider.post(`${o}/tickets/${ids.ticketNumber}/close`, {}), [404]],
      [
        'replace a fixture ticket type',
        outsider.put(`${o}/tickets/types/${ids.ticketType}`, { name: 'Taken over' }),
        [404],
      ],
      ['delete a fixture ticket type', outsider.send('DELETE', `${o}/tickets/types/${ids.ticketType}`), [404]],
      [
        'decide a fixture appeal',
        outsider.post(`${o}/appeals/${ids.appeal}/decision`, { decision: 'accepted', note: '' }),
        [404],
      ],
      ['undo a fixture journal event', outsider.post(`${o}/journal/${ids.journalEvent}/undo`, {}), [404]],
      ['order a fixture pack', outsider.put(`${o}/packs/${ids.pack}/items`, { ids: [ids.emoji] }), [400, 403]],
      [
        'add fixture items to a fixture pack',
        outsider.post(`${o}/packs/${ids.pack}/items`, { ids: [ids.emoji] }),
        [400, 403],
      ],
      ['edit a fixture case number', outsider.patch(`${o}/cases/${ids.caseNumber + 100}`, { reason: 'hijack' }), [404]],
    ];
    const failures: string[] = [];
    for (const [what, answer, statuses] of [...ownerTries, ...outsiderTries]) {
      const res = await answer;
      if (!statuses.includes(res.status)) failures.push(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    const deletion = await outsider.post(`${o}/items/delete`, { ids: [ids.emoji] });
    expect(deletion.status).toBe(200);
    expect(deletion.body.conflicts.length).toBeGreaterThan(0);
    expect(failures).toEqual([]);

    const record = await owner.get(`${g}/members/${other.member}`);
    expect([200, 404]).toContain(record.status);
    if (record.status === 200) {
      expect(record.body.cases).toEqual([]);
      expect(JSON.stringify(record.body)).not.toContain('other guild case');
    }
    const foreignJournal = await outsider.get(`${o}/journal?limit=100`);
    expect(foreignJournal.body.events.every((e: { guild: string }) => e.guild === other.guild)).toBe(true);
    const foreignSearch = await outsider.get(`${o}/messages?limit=100`);
    expect(foreignSearch.body.messages.every((m: { guild: string }) => m.guild === other.guild)).toBe(true);
    const foreignPacks = await outsider.get(`${o}/packs`);
    expect(JSON.stringify(foreignPacks.body.loose)).not.toContain(ids.emoji);

    expect(await guildSnapshot(outsider, other.guild, [other.member])).toEqual(otherBefore);
    expect(await guildSnapshot(owner, sys.guild, [ids.member])).toEqual(fixtureBefore);
    const writes = writeCalls(sys.fake, mark);
    expect(
      writes.filter((c) => touchesGuild(c, sys.fake, other.guild) || touchesGuild(c, sys.fake, sys.guild)),
    ).toEqual([]);
    sys.fake.assertNoViolations();
  });

  it('a session of one guild cannot read or act in the other guild at all', async () => {
    const { owner, outsider } = world.callers;
    for (const [client, guild] of [
      [owner, world.other.guild],
      [outsider, sys.guild],
    ] as const) {
      for (const path of ['/journal', '/logs', '/structure', '/premium', `/members/${world.ids.member}`]) {
        const res = await client.get(`/api/v1/servers/${guild}${path}`);
        expect(res.status).toBe(403);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
    }
  });
});
