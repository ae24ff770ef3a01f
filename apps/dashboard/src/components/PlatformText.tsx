import { parse } from 'discord-markdown-parser';
import { createContext, type ReactNode, useContext, useState } from 'react';
import { guildPath } from '../api';
import { useLoad } from '../hooks';
import { useGuild, useSession } from '../session';
import type { Structure } from '../types';

/** One node of the parser's tree (`discord-markdown-parser`, simple-markdown's shape: `type` plus rule fields). */
type Node = ReturnType<typeof parse>[number];

/** What mentions resolve against: the guild's roles and channels (`GET …/structure`) and the platform CDN URL. */
interface GuildText {
  roles: ReadonlyMap<string, { name: string; color: number }>;
  channels: ReadonlyMap<string, string>;
  cdnUrl: string;
}

const GuildTextContext = createContext<GuildText>({ roles: new Map(), channels: new Map(), cdnUrl: '' });

/**
 * Gives the guild's pages what `PlatformText` resolves mentions with: roles and channels from `GET …/structure`
 * (asked only with `structure.read`; without it, or before it answers, role and channel mentions show as unknown) and
 * `cdnUrl` of `/auth/me` for custom emoji.
 */
export function GuildTextProvider({ guild, children }: { guild: string; children: ReactNode }) {
  const info = useGuild(guild);
  const cdnUrl = useSession().me?.cdnUrl ?? '';
  const structure = useLoad<Structure>(info?.caps.includes('structure.read') ? guildPath(guild, '/structure') : null);
  const data = structure.data;
  const value: GuildText = {
    roles: new Map((data?.roles ?? []).map((r) => [r.id, { name: r.name, color: r.color }])),
    channels: new Map((data?.channels ?? []).map((c) => [c.id, c.name])),
    cdnUrl,
  };
  return <GuildTextContext.Provider value={value}>{children}</GuildTextContext.Provider>;
}

/** Names from the guild's structure: `#name` of a channel, `@name` of a role (`#unknown-channel`, `@unknown-role`). */
export function useGuildNames(): { channel: (id: string) => string; role: (id: string) => string } {
  const { channels, roles } = useContext(GuildTextContext);
  return {
    channel: (id) => `#${channels.get(id) ?? 'unknown-channel'}`,
    role: (id) => `@${roles.get(id)?.name ?? 'unknown-role'}`,
  };
}

/**
 * Text of the platform rendered as the platform renders it, as React elements (no HTML is ever injected): its
 * markdown (bold, italic, underline, strike, inline code and code blocks, spoilers, quotes, headings, subtext), links
 * (only http/https, `rel=noreferrer`), user mentions named from `users` (id -> display name: what the page knows,
 * e.g. message authors; `@unknown-user` with the id as title otherwise), role mentions in the role's colour, channel
 * mentions as `#name`, custom emoji as images from the platform CDN, and timestamps `<t:unix:style>` in the
 * browser's locale (style R relative to now). `block` renders a `div` (messages), else a `span` (one-line notes).
 */
export function PlatformText({
  text,
  users,
  block = true,
}: {
  text: string;
  users?: ReadonlyMap<string, string>;
  block?: boolean;
}) {
  const ctx = useContext(GuildTextContext);
  const nodes = parse(text, 'extended');
  const content = renderNodes(nodes, { ...ctx, users: users ?? new Map() });
  return block ? <div className="message-content">{content}</div> : <span className="platform-text">{content}</span>;
}

interface RenderContext extends GuildText {
  users: ReadonlyMap<string, string>;
}

function renderNodes(nodes: Node[] | undefined, ctx: RenderContext): ReactNode[] {
  // biome-ignore lint/suspicious/noArrayIndexKey: the tree is rebuilt from the same text; its order is its identity
  return (nodes ?? []).map((node, i) => <RenderNode key={i} node={node} ctx={ctx} />);
}

function children(node: Node, ctx: RenderContext): ReactNode {
  return typeof node.content === 'string' ? node.content : renderNodes(node.content as Node[], ctx);
}

/** One parsed node as elements; a node of an unknown type shows its text content. */
function RenderNode({ node, ctx }: { node: Node; ctx: RenderContext }): ReactNode {
  switch (node.type) {
    case 'text':
      return node.content as string;
    case 'br':
    case 'newline':
      return <br />;
    case 'strong':
      return <strong>{children(node, ctx)}</strong>;
    case 'em':
      return <em>{children(node, ctx)}</em>;
    case 'underline':
      return <u>{children(node, ctx)}</u>;
    case 'strikethrough':
      return <s>{children(node, ctx)}</s>;
    case 'inlineCode':
      return <code>{node.content as string}</code>;
    case 'codeBlock':
      return (
        <pre className="code-block">
          <code data-lang={(node.lang as string | undefined) || undefined}>{node.content as string}</code>
        </pre>
      );
    case 'blockQuote':
      return <blockquote>{children(node, ctx)}</blockquote>;
    case 'heading':
      return <span className={`md-heading md-h${node.level as number}`}>{children(node, ctx)}</span>;
    case 'subtext':
      return <small className="md-subtext">{children(node, ctx)}</small>;
    case 'spoiler':
      return <Spoiler>{children(node, ctx)}</Spoiler>;
    case 'url':
    case 'autolink':
    case 'link':
      return <SafeLink target={node.target as string}>{children(node, ctx)}</SafeLink>;
    case 'user': {
      const id = node.id as string;
      const name = ctx.users.get(id);
      return (
        <span className="mention" title={name ? undefined : id} data-user={id}>
          @{name ?? 'unknown-user'}
        </span>
      );
    }
    case 'role': {
      const role = ctx.roles.get(node.id as string);
      const color = role?.color ? `#${role.color.toString(16).padStart(6, '0')}` : undefined;
      return (
        <span className="mention role" title={role ? undefined : (node.id as string)}>
          {color && <span className="role-swatch" style={{ background: color }} aria-hidden="true" />}@
          {role?.name ?? 'unknown-role'}
        </span>
      );
    }
    case 'channel': {
      const name = ctx.channels.get(node.id as string);
      return (
        <span className="mention" title={name ? undefined : (node.id as string)}>
          #{name ?? 'unknown-channel'}
        </span>
      );
    }
    case 'everyone':
      return <span className="mention">@everyone</span>;
    case 'here':
      return <span className="mention">@here</span>;
    case 'emoji': {
      const alt = `:${node.name as string}:`;
      if (!ctx.cdnUrl) return alt;
      const src = `${ctx.cdnUrl}/emojis/${node.id as string}.${node.animated ? 'gif' : 'png'}`;
      return <img className="emoji" src={src} alt={alt} title={alt} width={22} height={22} />;
    }
    case 'twemoji':
      return node.name as string;
    case 'timestamp':
      return <Timestamp unix={Number(node.timestamp)} style={(node.format as string | undefined) ?? 'f'} />;
    case 'slashCommand':
      return <code>/{node.fullName as string}</code>;
    default:
      return typeof node.content === 'string' || Array.isArray(node.content) ? children(node, ctx) : null;
  }
}

/** A link to an http(s) URL (new tab, no referrer); any other scheme is shown as text. */
function SafeLink({ target, children: label }: { target: string; children: ReactNode }) {
  let url: URL | null = null;
  try {
    url = new URL(target);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return <>{label}</>;
  return (
    <a href={url.href} target="_blank" rel="noreferrer">
      {label}
    </a>
  );
}

/** Hidden text shown on press, as the platform does. */
function Spoiler({ children: content }: { children: ReactNode }) {
  const [shown, setShown] = useState(false);
  if (shown) return <span className="spoiler shown">{content}</span>;
  return (
    <button type="button" className="spoiler" onClick={() => setShown(true)}>
      Spoiler<span className="sr-only"> (show)</span>
    </button>
  );
}

/** Intl options of the platform's timestamp styles (`t`, `T`, `d`, `D`, `f` the default, `F`); `R` is relative. */
const TIMESTAMP_STYLES: Record<string, Intl.DateTimeFormatOptions> = {
  t: { timeStyle: 'short' },
  T: { timeStyle: 'medium' },
  d: { dateStyle: 'short' },
  D: { dateStyle: 'long' },
  f: { dateStyle: 'long', timeStyle: 'short' },
  F: { dateStyle: 'full', timeStyle: 'short' },
};

/** Relative-time units, largest first, with their length in seconds. */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** `unix` seconds in `style` (`R`: "in 3 days", "5 minutes ago"), in the browser's locale and time zone. */
export function formatTimestamp(unix: number, style: string, now = Date.now()): string {
  const at = new Date(unix * 1000);
  if (style === 'R') {
    const diff = unix - now / 1000;
    const [unit, size] = UNITS.find(([, s]) => Math.abs(diff) >= s) ?? UNITS[UNITS.length - 1];
    return new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(Math.round(diff / size), unit);
  }
  return new Intl.DateTimeFormat(undefined, TIMESTAMP_STYLES[style] ?? TIMESTAMP_STYLES.f).format(at);
}

function Timestamp({ unix, style }: { unix: number; style: string }) {
  if (!Number.isFinite(unix)) return null;
  const at = new Date(unix * 1000);
  return (
    <time className="timestamp" dateTime={at.toISOString()} title={formatTimestamp(unix, 'F')}>
      {formatTimestamp(unix, style)}
    </time>
  );
}
