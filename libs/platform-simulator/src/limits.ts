import type { APIEmbed } from 'discord-api-types/v10';
import { errors, invalidFormBody } from './errors';

/** Message content limit in characters (code points). */
export const MAX_CONTENT_LENGTH = 2000;
/** Embeds per message. */
export const MAX_EMBEDS = 10;
/** Characters across every embed's title, description, field names and values, footer text and author name. */
export const MAX_EMBED_TOTAL = 6000;
/** Forum tag name length. */
export const MAX_TAG_NAME_LENGTH = 20;
/** `X-Audit-Log-Reason` length in characters (code points). */
export const MAX_AUDIT_REASON_LENGTH = 512;

/** Length as Discord counts it: code points, not UTF-16 units. */
export function characters(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function embedCharacters(embed: APIEmbed): number {
  const parts = [
    embed.title,
    embed.description,
    embed.footer?.text,
    embed.author?.name,
    ...(embed.fields ?? []).flatMap((f) => [f.name, f.value]),
  ];
  return parts.reduce((sum, part) => sum + (typeof part === 'string' ? characters(part) : 0), 0);
}

/**
 * Discord's message limits its OpenAPI description does not carry: `content` at most 2000 characters, at most 10
 * embeds with at most 6000 characters in total. Throws 400 50035 naming the field, as Discord does.
 */
export function checkMessageLimits(body: { content?: string | null; embeds?: APIEmbed[] | null }): void {
  const problems: Array<{ path: string; code: string; message: string }> = [];
  if (typeof body.content === 'string' && characters(body.content) > MAX_CONTENT_LENGTH)
    problems.push({
      path: 'content',
      code: 'BASE_TYPE_MAX_LENGTH',
      message: `Must be ${MAX_CONTENT_LENGTH} or fewer in length.`,
    });
  const embeds = body.embeds ?? [];
  if (embeds.length > MAX_EMBEDS)
    problems.push({
      path: 'embeds',
      code: 'BASE_TYPE_MAX_LENGTH',
      message: `Must be ${MAX_EMBEDS} or fewer in length.`,
    });
  else if (embeds.reduce((sum, e) => sum + embedCharacters(e), 0) > MAX_EMBED_TOTAL)
    problems.push({
      path: 'embeds',
      code: 'MAX_EMBED_SIZE_EXCEEDED',
      message: `Embed size exceeds maximum size of ${MAX_EMBED_TOTAL}`,
    });
  if (problems.length) throw invalidFormBody(problems);
}

/** Forum tags: each `name` at most 20 characters (`available_tags.N.name`). */
export function checkForumTags(tags: Array<{ name?: string }> | undefined): void {
  const index = (tags ?? []).findIndex((t) => typeof t.name === 'string' && characters(t.name) > MAX_TAG_NAME_LENGTH);
  if (index !== -1)
    throw errors.invalidField(
      `available_tags.${index}.name`,
      'BASE_TYPE_BAD_LENGTH',
      `Must be between 1 and ${MAX_TAG_NAME_LENGTH} in length.`,
    );
}

/** The audit-log reason header: at most 512 characters, else 400 50035 on `reason`. */
export function checkAuditReason(reason: string | undefined): void {
  if (reason !== undefined && characters(reason) > MAX_AUDIT_REASON_LENGTH)
    throw errors.invalidField(
      'reason',
      'BASE_TYPE_MAX_LENGTH',
      `Must be ${MAX_AUDIT_REASON_LENGTH} or fewer in length.`,
    );
}
