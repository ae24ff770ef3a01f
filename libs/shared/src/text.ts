/**
 * Discord's documented length limits on text the services send, in characters as Discord counts them (Unicode code
 * points, not UTF-16 units).
 */
export const TEXT_LIMITS = {
  /** Message `content`. */
  content: 2000,
  /** `X-Audit-Log-Reason`. */
  auditReason: 512,
  /** Embed description. */
  embedDescription: 4096,
  /** Embed title. */
  embedTitle: 256,
  /** Embed field name. */
  embedFieldName: 256,
  /** Embed field value. */
  embedFieldValue: 1024,
  /** Channel and thread names. */
  channelName: 100,
  /** Modal title. */
  modalTitle: 45,
} as const;

/** Length of `text` in code points (how Discord counts characters). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/**
 * `text` cut to at most `max` code points, never inside a surrogate pair; when cut, the last kept code point is
 * replaced by `ellipsis` (if given) so the result still fits in `max`.
 */
export function cutCodePoints(text: string, max: number, ellipsis = ''): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  const keep = Math.max(0, max - codePointLength(ellipsis));
  return points.slice(0, keep).join('') + ellipsis;
}
