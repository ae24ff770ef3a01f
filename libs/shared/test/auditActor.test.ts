import { actorOfReason, onBehalfReason, TEXT_LIMITS } from '../src';

describe('audit-log reasons written for a person', () => {
  const by = { id: '123456789012345678', name: 'Noor' };

  it('when a reason is written for a person, then the person is read back from it', () => {
    const reason = onBehalfReason(by, 'Case #12 by Noor: spamming');
    expect(reason).toBe('[for 123456789012345678] Case #12 by Noor: spamming');
    expect(actorOfReason(reason)).toBe(by.id);
  });

  it('when a name or text imitates the head, then only the head at the start counts', () => {
    const reason = onBehalfReason(by, 'Case #1 by [for 999999999999999999] x (999999999999999999): y');
    expect(actorOfReason(reason)).toBe(by.id);
    expect(actorOfReason('spam [for 999999999999999999] x')).toBeNull();
  });

  it('when a reason has no head or none at all, then nobody is named', () => {
    expect(actorOfReason('Case #12 by Noor (123456789012345678): spamming')).toBeNull();
    expect(actorOfReason(null)).toBeNull();
    expect(actorOfReason(undefined)).toBeNull();
    expect(actorOfReason('')).toBeNull();
  });

  it('when the text is long, then the reason is cut to the platform limit in code points and keeps its head', () => {
    const reason = onBehalfReason(by, '😀'.repeat(600));
    expect(Array.from(reason)).toHaveLength(TEXT_LIMITS.auditReason);
    expect(actorOfReason(reason)).toBe(by.id);
  });
});
