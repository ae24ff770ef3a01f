/** The pages of a guild, each shown in the menu only to users holding its cap (the API checks it again). */
export const GUILD_PAGES: Array<{ path: string; label: string; caps: string[] }> = [
  { path: '', label: 'Overview', caps: ['setup.manage'] },
  { path: 'cases', label: 'Cases', caps: ['cases.read'] },
  { path: 'queues', label: 'Appeals & reports', caps: ['appeals.decide', 'reports.manage'] },
  { path: 'tickets', label: 'Tickets', caps: ['tickets.read'] },
  { path: 'logs', label: 'Log settings', caps: ['logs.read'] },
  { path: 'messages', label: 'Message search', caps: ['messages.search'] },
  { path: 'journal', label: 'Journal', caps: ['journal.read'] },
  { path: 'staff', label: 'Staff roles', caps: ['staff.manage'] },
  { path: 'forums', label: 'Forums', caps: ['forums.manage'] },
  { path: 'packs', label: 'Packs', caps: ['packs.manage'] },
  { path: 'premium', label: 'Premium', caps: ['premium.manage'] },
];

/** The menu entries `caps` allow. */
export function allowedPages(caps: readonly string[]) {
  const held = new Set(caps);
  return GUILD_PAGES.filter((p) => p.caps.some((c) => held.has(c)));
}
