import { EncodedJson, type MemberHistoryReply } from '@guildhall/shared';
import { withHistory } from '../src/record/getMemberRecord';

const own = {
  user: { id: '1', name: 'Ann "the" Ü', avatar: null, inServer: true },
  cases: [],
  reports: [],
  suggestion: null,
} as unknown as Parameters<typeof withHistory>[0];
const history = { events: [{ id: 'e1', data: { content: 'a},{"b' } }], deleted: [] } as unknown as MemberHistoryReply;

it("puts logs' answer into the record as its text: the record decodes to both parts", () => {
  const json = withHistory(own, new EncodedJson(JSON.stringify(history))).json;
  expect(JSON.parse(json)).toEqual({ ...own, ...history });
  expect(json).toContain(JSON.stringify(history.events));
});

it('decodes an answer that is not an object with members', () => {
  expect(JSON.parse(withHistory(own, new EncodedJson('{}')).json)).toEqual(own);
  expect(JSON.parse(withHistory(own, new EncodedJson(' {"events":[],"deleted":[]}')).json)).toEqual({
    ...own,
    events: [],
    deleted: [],
  });
});
