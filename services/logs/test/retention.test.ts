import { newSnowflake } from '@guildhall/shared';
import { eventually, type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import type { LogsConfig } from '../src/config';
import { JournalEventModel, UNSWEPT_EVENTS } from '../src/journal/model';
import { SWEEP_BATCH } from '../src/retention/retention';
import { definition } from '../src/service';

let h: ServiceHarness<LogsConfig, 'logs'>;
const DAY = 86_400_000;

/** Stores a journal event directly, as ingest would have `days` ago. */
async function storedEvent(kind: string, days: number, data: Record<string, unknown>) {
  const id = newSnowflake();
  await JournalEventModel.create({
    _id: id,
    key: id.padStart(20, '0'),
    guild: h.seed.id,
    kind,
    target: h.seed.ids.member,
    channel: h.seed.ids.general,
    data,
    dedupe: `test:${id}`,
    at: new Date(Date.now() - days * DAY),
    seenAt: new Date(Date.now() - days * DAY),
  });
  return id;
}

beforeAll(async () => {
  h = await startServiceHarness(definition, {
    env: { RETENTION_SWEEP_MS: '200', JOURNAL_RETENTION_DAYS: '90' },
    structure: true,
  });
});
afterAll(() => h?.close());

it('removes message content from journal events after 7 days, keeps the events, and expires events after 90 days', async () => {
  const oldDelete = await storedEvent('message_delete', 8, { message: '1', content: 'old secret', attachments: ['a'] });
  const oldEdit = await storedEvent('message_edit', 8, { message: '2', before: 'x', after: 'y', original: 'x' });
  const oldBulk = await storedEvent('message_bulk_delete', 8, { count: 1, ids: ['3'], messages: [{ content: 'z' }] });
  const fresh = await storedEvent('message_delete', 6, { message: '4', content: 'fresh words', attachments: [] });
  const ancient = await storedEvent('member_join', 91, { at: new Date().toISOString() });
  const kept = await storedEvent('member_join', 89, { at: new Date().toISOString() });

  const res = await h.call('GET', `/api/v1/servers/${h.seed.id}/journal?target=${h.seed.ids.member}&limit=100`, {
    caps: ['journal.read'],
  });
  const shown = new Map((res.body.events as Array<{ id: string; data: object }>).map((e) => [e.id, e.data]));
  expect(shown.get(oldDelete)).toEqual({ message: '1', contentExpired: true });
  expect(shown.get(fresh)).toMatchObject({ content: 'fresh words' });

  // a sweep that started while these events were being stored may have missed some of them: the next one takes them
  await eventually(async () => {
    expect(await JournalEventModel.exists({ _id: ancient })).toBeNull();
    const rows = new Map(
      (await JournalEventModel.find({ _id: { $in: [oldDelete, oldEdit, oldBulk, fresh, kept] } }).lean()).map((r) => [
        r._id,
        r.data,
      ]),
    );
    expect(rows.get(oldDelete)).toEqual({ message: '1', contentExpired: true });
    expect(rows.get(oldEdit)).toEqual({ message: '2', contentExpired: true });
    expect(rows.get(oldBulk)).toEqual({ count: 1, ids: ['3'], contentExpired: true });
    expect(rows.get(fresh)).toMatchObject({ content: 'fresh words' });
    expect(rows.has(kept)).toBe(true);
  });
});

it('sweeps a journal larger than one batch, reading only the events it still has to change', async () => {
  const guild = newSnowflake();
  const row = (kind: string, days: number, data: Record<string, unknown>) => {
    const id = newSnowflake();
    const at = new Date(Date.now() - days * DAY);
    return {
      _id: id,
      key: id.padStart(20, '0'),
      guild,
      kind,
      target: h.seed.ids.member,
      data,
      dedupe: `t:${id}`,
      at,
      seenAt: at,
    };
  };
  const old = Array.from({ length: 2 * SWEEP_BATCH + 1 }, (_, i) =>
    row('message_delete', 8, { message: `${i}`, content: 'secret' }),
  );
  const ancient = Array.from({ length: SWEEP_BATCH + 1 }, () => row('member_join', 95, {}));
  await JournalEventModel.insertMany([...old, ...ancient]);

  await eventually(async () => {
    expect(await JournalEventModel.countDocuments({ guild, 'data.contentExpired': true })).toBe(old.length);
    expect(await JournalEventModel.countDocuments({ guild, kind: 'member_join' })).toBe(0);
  });
  expect(await JournalEventModel.countDocuments({ guild, 'data.content': { $exists: true } })).toBe(0);
  const unswept = { kind: 'message_delete', 'data.contentExpired': null, at: { $lt: new Date(Date.now() - 7 * DAY) } };
  const plan = (await JournalEventModel.find(unswept).hint(UNSWEPT_EVENTS).explain('executionStats')) as unknown as {
    executionStats: { totalDocsExamined: number };
  };
  expect(plan.executionStats.totalDocsExamined).toBe(0);
  await JournalEventModel.deleteMany({ guild });
});
