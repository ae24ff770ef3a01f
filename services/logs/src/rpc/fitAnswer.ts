import { EncodedJson, type MemberHistoryReply } from '@guildhall/shared';

/**
 * Most bytes of JSON a member history answer takes: half of NATS's default `max_payload` (1 MiB), which would refuse
 * a larger answer. Fifty bulk-delete events each copying a hundred 4,000-character messages come to ~20 MB.
 */
export const ANSWER_BYTES = 512 * 1024;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * `reply` as the JSON the bus sends (`EventBus.reply` sends an `EncodedJson` as it is), cut to at most `bytes`:
 * events and deleted messages are kept newest first, one of each list in turn, until the next one would not fit; each
 * list stays a newest-first prefix of what it was. An answer that fits is encoded once, whole.
 */
export function fitAnswer(reply: MemberHistoryReply, bytes = ANSWER_BYTES): EncodedJson<MemberHistoryReply> {
  const json = JSON.stringify(reply);
  return new EncodedJson(Buffer.byteLength(json) <= bytes ? json : JSON.stringify(cutToFit(reply, bytes)));
}

/** Newest-first prefixes of `reply`'s two lists whose JSON takes at most `bytes` (see `fitAnswer`). */
function cutToFit(reply: MemberHistoryReply, bytes: number): MemberHistoryReply {
  const lists = [reply.events, reply.deleted] as const;
  const kept = [0, 0];
  let left = bytes - jsonBytes({ events: [], deleted: [] });
  for (let turn = 0; kept[0] < lists[0].length || kept[1] < lists[1].length; turn = 1 - turn) {
    const list = lists[turn];
    if (kept[turn] >= list.length) continue;
    // One byte for the comma before every item but a list's first.
    const cost = jsonBytes(list[kept[turn]]) + (kept[turn] > 0 ? 1 : 0);
    if (cost > left) break;
    left -= cost;
    kept[turn]++;
  }
  return { events: reply.events.slice(0, kept[0]), deleted: reply.deleted.slice(0, kept[1]) };
}
