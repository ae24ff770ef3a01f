import type { MessageRow } from '../messages/model';
import type { TicketRow } from '../tickets/model';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function attachmentLinks(urls: string[]): string {
  if (!urls.length) return '';
  const items = urls.map((url) => {
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? url);
    const safe = /^https?:\/\//.test(url) ? url : '#';
    return `<li><a href="${escapeHtml(safe)}">${escapeHtml(name)}</a></li>`;
  });
  return `<ul class="files">${items.join('')}</ul>`;
}

/**
 * The transcript of `ticket` as a self-contained HTML page: a header (number, type, opener, status, who closed it
 * and why) and each message oldest first with author, bot marker, UTC time, text (escaped; line breaks kept) and
 * attachment links.
 */
export function renderTranscript(ticket: TicketRow, messages: MessageRow[]): string {
  const title = `Ticket #${ticket.number} (${ticket.typeName})`;
  const closed = ticket.closedAt
    ? `<p>Closed ${escapeHtml(ticket.closedAt.toISOString())}${ticket.closedBy ? ` by ${escapeHtml(ticket.closedBy)}` : ' by the service'}${ticket.closeReason ? `: ${escapeHtml(ticket.closeReason)}` : ''}</p>`
    : '';
  const rows = messages.map(
    (m) =>
      `<article><header><strong>${escapeHtml(m.authorName)}</strong>${m.bot ? ' <span class="bot">BOT</span>' : ''} ` +
      `<time datetime="${m.at.toISOString()}">${m.at.toISOString().replace('T', ' ').slice(0, 19)} UTC</time></header>` +
      `<p>${escapeHtml(m.content).replace(/\n/g, '<br>')}</p>${attachmentLinks(m.attachments)}</article>`,
  );
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:sans-serif;max-width:50rem;margin:auto}article{border-bottom:1px solid #ddd;padding:.5rem 0}' +
      'time{color:#666;font-size:.85em}.bot{background:#5865f2;color:#fff;font-size:.7em;padding:0 .3em}</style></head>',
    `<body><h1>${escapeHtml(title)}</h1>`,
    `<p>Opened by ${escapeHtml(ticket.openerName)} (${escapeHtml(ticket.opener)}) ${escapeHtml(ticket.createdAt.toISOString())}; status ${escapeHtml(ticket.status)}</p>`,
    closed,
    ...rows,
    '</body></html>',
  ].join('\n');
}
