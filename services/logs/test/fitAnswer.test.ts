import type { MemberHistoryReply } from '@guildhall/shared';
import { ANSWER_BYTES, fitAnswer } from '../src/rpc/fitAnswer';

type Reply = MemberHistoryReply;
const bytes = (r: Reply) => Buffer.byteLength(JSON.stringify(r));
/** `fitAnswer`'s answer decoded. */
const fitted = (r: Reply): Reply => JSON.parse(fitAnswer(r).json);

/** A member history with `n` events and `n` deleted messages of about `size` characters each, newest first. */
function history(n: number, size: number): Reply {
  const text = 'é'.repeat(size / 2);
  return {
    events: Array.from({ length: n }, (_, i) => ({ id: `e${i}`, data: { messages: [{ content: text }] } })),
    deleted: Array.from({ length: n }, (_, i) => ({ id: `m${i}`, content: text })),
  } as unknown as Reply;
}

it('encodes an answer that fits whole', () => {
  const small = history(50, 1000);
  expect(fitAnswer(small).json).toBe(JSON.stringify(small));
});

it('cuts an answer over the limit to newest-first prefixes of both lists that fit', () => {
  const big = history(50, 40_000);
  expect(bytes(big)).toBeGreaterThan(ANSWER_BYTES);
  const cut = fitted(big);
  expect(bytes(cut)).toBeLessThanOrEqual(ANSWER_BYTES);
  expect(cut.events).toEqual(big.events.slice(0, cut.events.length));
  expect(cut.deleted).toEqual(big.deleted.slice(0, cut.deleted.length));
  expect(cut.events.length).toBeGreaterThan(0);
  expect(Math.abs(cut.events.length - cut.deleted.length)).toBeLessThanOrEqual(1);
  const oneMore = { events: big.events.slice(0, cut.events.length + 1), deleted: cut.deleted };
  expect(bytes(oneMore)).toBeGreaterThan(ANSWER_BYTES);
});

it('keeps the other list growing when one runs out', () => {
  const big = history(50, 40_000);
  const cut = fitted({ events: big.events.slice(0, 2), deleted: big.deleted });
  expect(cut.events).toHaveLength(2);
  expect(cut.deleted.length).toBeGreaterThan(2);
  expect(bytes(cut)).toBeLessThanOrEqual(ANSWER_BYTES);
});
