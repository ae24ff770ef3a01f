import { type System, startSystem, USERS } from '@guildhall/testkit';
import { ApiClient } from '../e2e/support/client';
import { Coverage } from '../e2e/support/coverage';

/** The peer timeout the services run with (ms); the answer may take this plus the margin below. */
const PEER_TIMEOUT_MS = 1500;
const MARGIN_MS = 1000;

let sys: System;
let api: ApiClient;

beforeAll(async () => {
  // The member record cache off: every read asks logs, which is what these tests stop (a record read within the
  // cache's 3 s would be answered from moderation's cache; services/moderation/test/recordCache.test.ts covers that).
  sys = await startSystem({ env: { PEER_TIMEOUT_MS: String(PEER_TIMEOUT_MS), MEMBER_RECORD_CACHE_MS: '0' } });
  api = new ApiClient(sys.gatewayUrl, new Coverage(), { cookie: await sys.login(USERS.owner) });
}, 90_000);
afterAll(async () => {
  await sys?.stop();
});

const recordPath = () => `/api/v1/servers/${sys.guild}/members/${USERS.moderator}`;

/** GET the moderator's member record through the gateway; resolves with the answer and how long it took (ms). */
async function timedRecord() {
  const started = Date.now();
  const answer = await api.get(recordPath());
  return { answer, ms: Date.now() - started };
}

function expectPeerProblem(answer: Awaited<ReturnType<typeof timedRecord>>['answer']): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('content-type')).toContain('application/problem+json');
  expect(answer.body).toMatchObject({ status: 503 });
  expect(answer.body.detail).toContain('memberHistory');
}

it('answers the member record with a 503 problem within the peer timeout while logs is frozen, and 200 after SIGCONT', async () => {
  const before = await timedRecord();
  expect(before.answer.status).toBe(200);
  expect(before.answer.body.user).toMatchObject({ id: USERS.moderator, inServer: true });

  const logs = sys.stack.processes.logs;
  expect(logs.kill('SIGSTOP')).toBe(true);
  try {
    const frozen = await timedRecord();
    expectPeerProblem(frozen.answer);
    expect(frozen.ms).toBeGreaterThanOrEqual(PEER_TIMEOUT_MS - 50);
    expect(frozen.ms).toBeLessThan(PEER_TIMEOUT_MS + MARGIN_MS);
  } finally {
    logs.kill('SIGCONT');
  }
  const after = await timedRecord();
  expect(after.answer.status).toBe(200);
  expect(after.answer.body.user.id).toBe(USERS.moderator);
}, 60_000);

it('answers with a 503 problem at once while logs is down, and 200 after it is restarted', async () => {
  await sys.stack.kill('logs', 'SIGKILL');
  const down = await timedRecord();
  expectPeerProblem(down.answer);
  expect(down.ms).toBeLessThan(PEER_TIMEOUT_MS + MARGIN_MS);

  await sys.stack.start('logs');
  const back = await timedRecord();
  expect(back.answer.status).toBe(200);
  expect(back.answer.body.user.id).toBe(USERS.moderator);
}, 90_000);
