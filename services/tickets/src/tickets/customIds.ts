/**
 * Custom ids of the components and modals this service puts on the platform (<= 100 chars each):
 * `ticket:open:<typeId>` (panel button), `ticket:form:<typeId>` (questions modal), `ticket:answer:<i>` (modal text
 * input for question i), `ticket:claim` and `ticket:close` (buttons on the welcome message in the ticket's thread).
 */
export const customIds = {
  open: (typeId: string) => `ticket:open:${typeId}`,
  form: (typeId: string) => `ticket:form:${typeId}`,
  answer: (index: number) => `ticket:answer:${index}`,
  claim: 'ticket:claim',
  close: 'ticket:close',
} as const;

/** What a custom id asks for, or null when it is not one of this service's. */
export type ParsedCustomId = { kind: 'open' | 'form'; typeId: string } | { kind: 'claim' | 'close' } | null;

/** Parses a component or modal custom id (see `customIds`). */
export function parseCustomId(id: string): ParsedCustomId {
  const typed = /^ticket:(open|form):([0-9a-f]{24})$/.exec(id);
  if (typed) return { kind: typed[1] as 'open' | 'form', typeId: typed[2] };
  if (id === customIds.claim) return { kind: 'claim' };
  if (id === customIds.close) return { kind: 'close' };
  return null;
}
