import { type ArchivedAttachmentRow, unsignedUrl } from '@guildhall/shared';
import type { APIEmbed } from 'discord-api-types/v10';
import { ticketAttachmentPath } from '../messages/archivedLinks';
import type { MessageRow } from '../messages/model';
import type { TicketRow } from '../tickets/model';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Escaped text with line breaks kept. */
const textHtml = (text: string) => escapeHtml(text).replace(/\n/g, '<br>');

/** An http(s) URL or a root-relative path, escaped for an attribute; anything else (javascript:, data:) -> `#`. */
const safeUrl = (url: string | undefined) =>
  escapeHtml(url && (/^https?:\/\//i.test(url) || /^\/[^/\\]/.test(url)) ? url : '#');

const NOT_ARCHIVED: Record<string, string> = {
  too_large: 'not archived: over the size cap',
  guild_quota: "not archived: over the server's archive quota",
  unreachable: 'not archived: the file was unreachable',
};

function fileName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  } catch {
    return url;
  }
}

/**
 * One attachment: a link to Guildhall's archived copy (an inline image for image types) when stored, else the
 * platform's link marked as not archived (or not archived yet).
 */
function attachmentItem(url: string, file: ArchivedAttachmentRow | undefined): string {
  if (file?.state === 'stored') {
    const href = safeUrl(ticketAttachmentPath(file.guild, file.attachment));
    const image = file.contentType?.startsWith('image/') ? `<br><img src="${href}" alt="" loading="lazy">` : '';
    return `<li><a href="${href}">${escapeHtml(file.filename)}</a>${image}</li>`;
  }
  const mark = file ? (NOT_ARCHIVED[file.reason ?? ''] ?? 'not archived yet') : 'not archived';
  const name = file?.filename ?? fileName(url);
  return `<li><a href="${safeUrl(url)}">${escapeHtml(name)}</a> <span class="mark">(${escapeHtml(mark)})</span></li>`;
}

function attachmentList(urls: string[], files: Map<string, ArchivedAttachmentRow>): string {
  if (!urls.length) return '';
  return `<ul class="files">${urls.map((url) => attachmentItem(url, files.get(unsignedUrl(url)))).join('')}</ul>`;
}

/** One embed: author, title (linked when it has a URL), description, fields, image, footer; all escaped. */
function embedHtml(embed: APIEmbed): string {
  const color = typeof embed.color === 'number' ? `#${embed.color.toString(16).padStart(6, '0')}` : '#ccc';
  const parts: string[] = [];
  if (embed.author?.name) {
    const name = escapeHtml(embed.author.name);
    parts.push(
      `<div class="author">${embed.author.url ? `<a href="${safeUrl(embed.author.url)}">${name}</a>` : name}</div>`,
    );
  }
  if (embed.title) {
    const title = escapeHtml(embed.title);
    parts.push(`<div class="title">${embed.url ? `<a href="${safeUrl(embed.url)}">${title}</a>` : title}</div>`);
  }
  if (embed.description) parts.push(`<div class="description">${textHtml(embed.description)}</div>`);
  if (embed.fields?.length) {
    const fields = embed.fields.map((f) => `<dt>${escapeHtml(f.name)}</dt><dd>${textHtml(f.value)}</dd>`);
    parts.push(`<dl>${fields.join('')}</dl>`);
  }
  if (embed.image?.url) parts.push(`<img src="${safeUrl(embed.image.url)}" alt="" loading="lazy">`);
  if (embed.footer?.text) parts.push(`<div class="footer">${escapeHtml(embed.footer.text)}</div>`);
  return `<div class="embed" style="border-left-color:${escapeHtml(color)}">${parts.join('')}</div>`;
}

/**
 * The transcript of `ticket` as a self-contained HTML page: a header (number, type, opener, status, who closed it
 * and why) and each message oldest first with author, bot marker, UTC time, text (escaped; line breaks kept), embeds
 * (author, title, description, fields, image, footer) and attachments. `files` are the archive rows of the messages'
 * attachments: a stored one links to Guildhall's copy (`/api/v1/servers/{guild}/tickets/attachments/{id}`), any
 * other keeps the platform's link, marked as not archived. Every value from users or the platform is escaped.
 */
export function renderTranscript(
  ticket: TicketRow,
  messages: MessageRow[],
  files: ArchivedAttachmentRow[] = [],
): string {
  const byUrl = new Map(files.map((f) => [unsignedUrl(f.url), f]));
  const title = `Ticket #${ticket.number} (${ticket.typeName})`;
  const closed = ticket.closedAt
    ? `<p>Closed ${escapeHtml(ticket.closedAt.toISOString())}${ticket.closedBy ? ` by ${escapeHtml(ticket.closedBy)}` : ' by the service'}${ticket.closeReason ? `: ${escapeHtml(ticket.closeReason)}` : ''}</p>`
    : '';
  const rows = messages.map(
    (m) =>
      `<article><header><strong>${escapeHtml(m.authorName)}</strong>${m.bot ? ' <span class="bot">BOT</span>' : ''} ` +
      `<time datetime="${m.at.toISOString()}">${m.at.toISOString().replace('T', ' ').slice(0, 19)} UTC</time></header>` +
      `<p>${textHtml(m.content)}</p>${(m.embeds ?? []).map(embedHtml).join('')}` +
      `${attachmentList(m.attachments ?? [], byUrl)}</article>`,
  );
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:sans-serif;max-width:50rem;margin:auto}article{border-bottom:1px solid #ddd;padding:.5rem 0}' +
      'time{color:#666;font-size:.85em}.bot{background:#5865f2;color:#fff;font-size:.7em;padding:0 .3em}' +
      '.embed{border-left:4px solid #ccc;background:#f6f6f6;padding:.4rem .6rem;margin:.3rem 0}.embed .title{font-weight:bold}' +
      '.embed .footer,.mark{color:#666;font-size:.8em}img{max-width:100%;max-height:20rem}</style></head>',
    `<body><h1>${escapeHtml(title)}</h1>`,
    `<p>Opened by ${escapeHtml(ticket.openerName)} (${escapeHtml(ticket.opener)}) ${escapeHtml(ticket.createdAt.toISOString())}; status ${escapeHtml(ticket.status)}</p>`,
    closed,
    ...rows,
    '</body></html>',
  ].join('\n');
}
