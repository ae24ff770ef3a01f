import { type Crash, crashPoints, eventsOfType, waitFor } from '@guildhall/testkit';
import type { ModerationContext } from '../src/config';
import { queueThreadName } from '../src/platform/queueThread';
import { fileReport } from '../src/reports/fileReport';
import { ReportModel, type ReportRow } from '../src/reports/model';
import { openReportModal } from '../src/reports/reportModal';
import { dyingModeration, type Harness, reportInteraction, reportSubmission, startHarness } from './harness';

/**
 * A report (the submitted report modal) redelivered after the process died at any step of filing it (before or after the platform
 * carried out the call: answering the reporter, creating the queue thread, posting in it, storing the event) ends as
 * one delivery does: one queue thread, named for the report, stored on it, with one post, and one `report.created`.
 * The crash that used to open a second thread: the thread created, its id not yet stored.
 */
let h: Harness;
let next = 0;

beforeAll(async () => {
  h = await startHarness();
  const settings = { appealsChannel: null, reportsChannel: h.seed.ids.modLog };
  expect((await h.call('PUT', `/api/v1/servers/${h.seed.id}/moderation/settings`, { body: settings })).status).toBe(
    200,
  );
});
afterAll(() => h?.close());
afterEach(() => jest.restoreAllMocks());

const dying = (crash: Crash | null) => dyingModeration(h, crash, ReportModel);

/**
 * Runs "Report message" (its modal shown), then files its submission, first in a process dying at `crash` when
 * given, then delivered again; what it left.
 */
async function file(crash: Crash | null) {
  next++;
  const message = `14200000000000${next}`;
  const { platform, logger } = h.service.ctx as ModerationContext;
  const command = reportInteraction(h, `14300000000000${next}`, h.seed.ids.support, message);
  await openReportModal(platform, logger, command as never);
  const d = reportSubmission(h, `14100000000000${next}`, h.seed.ids.support, message, 'spam');
  if (crash) {
    const crashed = dying(crash);
    await expect(fileReport(crashed.platform, crashed.outbox, logger, d as never)).rejects.toThrow('process died');
    jest.restoreAllMocks();
  }
  const counted = dying(null);
  await fileReport(counted.platform, counted.outbox, logger, d as never);
  jest.restoreAllMocks();
  const report = await ReportModel.findOne({ interaction: d.id }).lean<ReportRow>();
  const guild = h.fake.guild(h.seed.id)!;
  const threads = [...guild.channels.values()].filter(
    (c) =>
      'parent_id' in c &&
      c.parent_id === h.seed.ids.modLog &&
      c.name === queueThreadName({ record: report!._id, title: 'Report · pat · by Sam S' }),
  );
  const created = await waitFor(
    () => eventsOfType(h.events, 'report.created').filter((e) => e.data.report.id === report!._id),
    (found) => found.length > 0,
  );
  return {
    result: {
      answered: report?.answered,
      threads: threads.length,
      stored: threads.length === 1 && report?.queueThread === threads[0].id,
      posts: threads.map((t) => (guild.messages.get(t.id) ?? []).length),
      created: created.length,
    },
    calls: counted.calls(),
  };
}

it('a report redelivered after a crash at any step opens one queue thread, as one delivery does', async () => {
  const clean = await file(null);
  expect(clean.result).toEqual({ answered: true, threads: 1, stored: true, posts: [1], created: 1 });
  // answer the reporter, create the thread, post in it, emit
  expect(clean.calls).toBe(4);
  for (const crash of crashPoints(clean.calls)) {
    const { result } = await file(crash);
    expect({ crash, result }).toEqual({ crash, result: clean.result });
  }
  h.fake.assertNoViolations();
});
