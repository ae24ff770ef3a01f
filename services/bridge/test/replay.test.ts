import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dispatchTime, lineMsgId, parseRecordedLine, replayFile } from '@guildhall/bridge';
import { createLogger, dispatchSubject, EventBus } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl } from '@guildhall/testkit';

const logger = createLogger('replay-test', 'silent');
const fixture = join(__dirname, '..', '..', '..', 'fixtures', 'guild-day.ndjson');
const dir = mkdtempSync(join(tmpdir(), 'replay-test-'));

const message = (id: string, timestamp: string) =>
  JSON.stringify({
    t: 'MESSAGE_CREATE',
    s: Number(id.slice(-3)),
    op: 0,
    d: { id, channel_id: '1', guild_id: '2', content: `message ${id}`, timestamp },
  });

describe('replayFile', () => {
  const namespaces: string[] = [];
  const fresh = () => {
    const ns = testNamespace();
    namespaces.push(ns);
    return ns;
  };
  afterAll(async () => {
    for (const ns of namespaces) await deleteNamespace(ns);
  });

  it('publishes the recorded day once: every line on its subject with a line-hash msg id; a second run adds nothing', async () => {
    const ns = fresh();
    const progress: number[] = [];
    const first = await replayFile({
      file: fixture,
      natsUrl: testNatsUrl(),
      namespace: ns,
      onProgress: (p) => progress.push(p.done),
    });
    const events: Record<string, number> = {};
    for (const line of readFileSync(fixture, 'utf8').trimEnd().split('\n')) {
      const { t } = JSON.parse(line) as { t: string };
      events[t] = (events[t] ?? 0) + 1;
    }
    const total = Object.values(events).reduce((a, b) => a + b, 0);
    expect(first).toMatchObject({ lines: total, published: total, duplicates: 0, malformed: 0, failed: 0 });
    expect(first.perType).toEqual(events);
    expect(progress[progress.length - 1]).toBe(total);

    const bus = await EventBus.connect({ url: testNatsUrl(), name: 'replay-reader', namespace: ns, logger });
    try {
      const stream = bus.streamName('PLATFORM');
      expect((await bus.jsm.streams.info(stream)).state.messages).toBe(total);
      const firstMsg = await bus.jsm.streams.getMessage(stream, { seq: 1 });
      const firstLine = readFileSync(fixture, 'utf8').split('\n')[0];
      const first = JSON.parse(firstLine);
      expect(first.t).toBe('GUILD_CREATE');
      expect(firstMsg?.subject).toBe(`${ns}.${dispatchSubject('GUILD_CREATE', first.d)}`);
      expect(firstMsg?.subject).toBe(`${ns}.platform.dispatch.${BigInt(first.d.id) % 16n}.other.GUILD_CREATE`);
      expect(firstMsg?.string()).toBe(firstLine);
      expect(firstMsg?.header?.get('Nats-Msg-Id')).toBe(lineMsgId(firstLine));
      // pipelined publishes keep the file's order in the stream
      const lines = readFileSync(fixture, 'utf8').trimEnd().split('\n');
      for (let seq = 1; seq <= total; seq++)
        expect((await bus.jsm.streams.getMessage(stream, { seq }))?.string()).toBe(lines[seq - 1]);

      // as the bridge routes them: the messages of the channels the day's GUILD_CREATE and CHANNEL_CREATE name on the
      // channel subject, those of its threads (listed, or created during the day) on the message subject
      const recorded = readFileSync(fixture, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { t: string; d: { id: string; channel_id: string } });
      const channels = new Set([
        ...first.d.channels.map((c: { id: string }) => c.id),
        ...recorded.filter((l) => l.t === 'CHANNEL_CREATE').map((l) => l.d.id),
      ]);
      const messages = recorded.filter((l) => /^MESSAGE_(CREATE|UPDATE|DELETE|DELETE_BULK)$/.test(l.t));
      const inChannels = messages.filter((l) => channels.has(l.d.channel_id)).length;
      const stored = async (filter: string) => {
        const info = await bus.jsm.streams.info(stream, { subjects_filter: `${ns}.${filter}` });
        return Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
      };
      expect(inChannels).toBeGreaterThan(0);
      expect(messages.length - inChannels).toBeGreaterThan(0);
      expect(await stored('platform.dispatch.*.message.channel.*')).toBe(inChannels);
      expect(await stored('platform.dispatch.*.message.*')).toBe(messages.length - inChannels);

      const again = await replayFile({ file: fixture, natsUrl: testNatsUrl(), namespace: ns });
      expect(again).toMatchObject({ published: 0, duplicates: total, failed: 0 });
      expect((await bus.jsm.streams.info(stream)).state.messages).toBe(total);
    } finally {
      await bus.close();
    }
  });

  it('counts malformed lines with their line numbers and publishes the rest', async () => {
    const file = join(dir, 'mixed.ndjson');
    writeFileSync(
      file,
      [
        message('1000000000000000101', '2025-03-14T10:00:00.000000+00:00'),
        '{not json',
        '',
        JSON.stringify({ op: 1, d: null }),
        JSON.stringify({ t: 'MESSAGE_CREATE', s: 3, op: 0, d: [] }),
        message('1000000000000000102', '2025-03-14T10:00:01.000000+00:00'),
      ].join('\n'),
    );
    const summary = await replayFile({ file, natsUrl: testNatsUrl(), namespace: fresh() });
    expect(summary).toMatchObject({ lines: 5, published: 2, malformed: 3, failed: 0, perType: { MESSAGE_CREATE: 2 } });
    expect(summary.skipped.map((s) => s.line)).toEqual([2, 4, 5]);
    expect(summary.skipped[0].reason).toMatch(/not JSON/);
  });

  it('with --speed N, spaces lines by their own times divided by N', async () => {
    const file = join(dir, 'timed.ndjson');
    writeFileSync(
      file,
      [
        message('1000000000000000201', '2025-03-14T10:00:00.000000+00:00'),
        JSON.stringify({ t: 'MESSAGE_DELETE', s: 2, op: 0, d: { id: '1000000000000000201', channel_id: '1' } }),
        message('1000000000000000203', '2025-03-14T10:00:02.000000+00:00'),
        message('1000000000000000204', '2025-03-14T10:00:04.000000+00:00'),
      ].join('\n'),
    );
    const summary = await replayFile({ file, natsUrl: testNatsUrl(), namespace: fresh(), speed: 4 });
    expect(summary.published).toBe(4);
    expect(summary.elapsedMs).toBeGreaterThanOrEqual(950);
    expect(summary.elapsedMs).toBeLessThan(2500);
  });
});

describe('recorded line helpers', () => {
  it('reads each event time from the payload, or none', () => {
    const parse = (line: string) => {
      const p = parseRecordedLine(line);
      if (!p.ok) throw new Error(p.reason);
      return p.dispatch;
    };
    expect(dispatchTime(parse(message('1000000000000000301', '2025-03-14T10:00:00.000000+00:00')))).toBe(
      Date.parse('2025-03-14T10:00:00Z'),
    );
    const audit = { t: 'GUILD_AUDIT_LOG_ENTRY_CREATE', s: 1, op: 0, d: { id: '1350045794304131635', action_type: 30 } };
    expect(dispatchTime(parse(JSON.stringify(audit)))).toBe(Number((1350045794304131635n >> 22n) + 1420070400000n));
    expect(dispatchTime(parse(JSON.stringify({ t: 'GUILD_BAN_ADD', s: 1, op: 0, d: { guild_id: '1' } })))).toBeNull();
    expect(lineMsgId('a')).not.toBe(lineMsgId('b'));
    expect(lineMsgId('a')).toBe(lineMsgId('a'));
  });
});
