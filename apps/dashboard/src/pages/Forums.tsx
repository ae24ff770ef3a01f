import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { api, guildPath } from '../api';
import { CheckField, TextField } from '../components/Fields';
import { Pager } from '../components/Pager';
import { RoleOptions } from '../components/RoleOptions';
import { Loadable, SaveResult, When } from '../components/Status';
import { Table } from '../components/Table';
import { useAction, useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { Forum, ForumPost, ForumStatus, Structure } from '../types';

/** The platform's auto-archive durations a status can set (minutes; 0 = never). */
const ARCHIVE_AFTER: Array<{ value: ForumStatus['archiveAfter']; label: string }> = [
  { value: 0, label: 'Never' },
  { value: 60, label: '1 hour' },
  { value: 1440, label: '1 day' },
  { value: 4320, label: '3 days' },
  { value: 10080, label: '1 week' },
];
/** Posts per page. */
const PAGE = 50;

/**
 * Forums and post statuses: pick a forum (`GET …/forums`), edit its statuses (tag, reply, reward role, lock, archive
 * time; the first is the status new posts start in) and save them with `PUT …/forums/{forum}`; with `posts.manage`,
 * its posts newest first (`GET …/forums/{forum}/posts`) with a status picker each (`PUT …/posts/{thread}/status`).
 */
export function ForumsPage() {
  const { guild = '' } = useParams();
  useTitle('Forums');
  const info = useGuild(guild);
  const forums = useLoad<{ forums: Forum[] }>(guildPath(guild, '/forums'));
  const structure = useLoad<Structure>(guildPath(guild, '/structure'));
  const [chosen, setChosen] = useState('');
  const list = forums.data?.forums ?? [];
  const forum = list.find((f) => f.forum === chosen) ?? list[0];
  return (
    <>
      <h1>Forums</h1>
      <Loadable
        loading={forums.loading && !forums.data}
        error={forums.error}
        empty={list.length === 0}
        emptyText="This guild has no forum channel."
      >
        {list.length > 1 && (
          <div className="field">
            <label htmlFor="forum-pick">Forum</label>
            <select id="forum-pick" value={forum?.forum ?? ''} onChange={(e) => setChosen(e.target.value)}>
              {list.map((f) => (
                <option key={f.forum} value={f.forum}>
                  #{f.name}
                </option>
              ))}
            </select>
          </div>
        )}
        {forum && (
          <>
            <StatusesForm
              key={forum.forum}
              guild={guild}
              forum={forum}
              structure={structure.data}
              onSaved={forums.reload}
            />
            {info?.caps.includes('posts.manage') && forum.managed && (
              <Posts key={`posts-${forum.forum}`} guild={guild} forum={forum} />
            )}
          </>
        )}
      </Loadable>
    </>
  );
}

/** The statuses of one forum, edited as a list and saved at once. */
function StatusesForm({
  guild,
  forum,
  structure,
  onSaved,
}: {
  guild: string;
  forum: Forum;
  structure: Structure | null;
  onSaved: () => void;
}) {
  const [statuses, setStatuses] = useState<ForumStatus[]>(forum.statuses);
  const save = useAction();
  useEffect(() => setStatuses(forum.statuses), [forum.statuses]);
  const roles = (structure?.roles ?? []).filter((r) => !r.managed && r.id !== guild && r.position < structure!.botTop);
  const unused = forum.tags.filter((t) => !statuses.some((s) => s.tag === t.id));
  const update = (i: number, next: ForumStatus | null) =>
    setStatuses(next ? statuses.map((s, j) => (j === i ? next : s)) : statuses.filter((_, j) => j !== i));
  const move = (i: number, by: -1 | 1) => {
    const next = [...statuses];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    setStatuses(next);
  };
  return (
    <form
      className="form"
      onSubmit={async (e) => {
        e.preventDefault();
        const done = statuses.length ? 'Statuses saved.' : 'The forum is no longer managed.';
        if (await save.run(() => api('PUT', guildPath(guild, `/forums/${forum.forum}`), { statuses }), done)) {
          onSaved();
        }
      }}
    >
      <h2>
        Statuses of #{forum.name}{' '}
        <span className={`badge badge-${forum.managed ? 'active' : 'expired'}`}>
          {forum.managed ? 'managed' : 'not managed'}
        </span>
      </h2>
      <p className="muted">
        Each status is one of the forum's tags. A post starts in the first status; setting a status replies, may give
        the author a role, lock the post and archive it later.
      </p>
      <SaveResult action={save} />
      {statuses.map((s, i) => {
        const id = `status-${i}`;
        const tag = forum.tags.find((t) => t.id === s.tag);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a status's tag can change while edited; its place is its identity
          <fieldset key={i} data-status={s.tag}>
            <legend>
              Status {i + 1}: {tag ? `${tag.emoji ?? ''} ${tag.name}`.trim() : s.tag}
            </legend>
            <div className="field">
              <label htmlFor={`${id}-tag`}>Tag</label>
              <select id={`${id}-tag`} value={s.tag} onChange={(e) => update(i, { ...s, tag: e.target.value })}>
                {forum.tags
                  .filter((t) => t.id === s.tag || !statuses.some((x) => x.tag === t.id))
                  .map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name}
                    </option>
                  ))}
              </select>
            </div>
            <TextField
              id={`${id}-reply`}
              label="Reply posted in the post"
              maxLength={2000}
              multiline
              value={s.reply}
              onChange={(value) => update(i, { ...s, reply: value })}
            />
            <div className="filters">
              <div className="field">
                <label htmlFor={`${id}-role`}>Role given to the author</label>
                <select
                  id={`${id}-role`}
                  value={s.rewardRole ?? ''}
                  onChange={(e) => update(i, { ...s, rewardRole: e.target.value || null })}
                >
                  <option value="">None</option>
                  <RoleOptions roles={roles} />
                </select>
              </div>
              <div className="field">
                <label htmlFor={`${id}-archive`}>Archive after</label>
                <select
                  id={`${id}-archive`}
                  value={s.archiveAfter}
                  onChange={(e) =>
                    update(i, { ...s, archiveAfter: Number(e.target.value) as ForumStatus['archiveAfter'] })
                  }
                >
                  {ARCHIVE_AFTER.map((a) => (
                    <option key={a.value} value={a.value}>
                      {a.label}
                    </option>
                  ))}
                </select>
              </div>
              <CheckField
                id={`${id}-lock`}
                label="Lock the post"
                checked={s.lock}
                onChange={(checked) => update(i, { ...s, lock: checked })}
              />
            </div>
            <div className="actions">
              <button type="button" disabled={i === 0} onClick={() => move(i, -1)}>
                Move up<span className="sr-only"> status {i + 1}</span>
              </button>
              <button type="button" disabled={i === statuses.length - 1} onClick={() => move(i, 1)}>
                Move down<span className="sr-only"> status {i + 1}</span>
              </button>
              <button type="button" className="danger" onClick={() => update(i, null)}>
                Remove status {i + 1}
              </button>
            </div>
          </fieldset>
        );
      })}
      <div className="actions">
        <button
          type="button"
          disabled={unused.length === 0}
          onClick={() =>
            unused[0] &&
            setStatuses([...statuses, { tag: unused[0].id, reply: '', rewardRole: null, lock: false, archiveAfter: 0 }])
          }
        >
          Add a status
        </button>
        <button type="submit" className="primary" disabled={save.busy}>
          Save statuses
        </button>
      </div>
    </form>
  );
}

/**
 * The forum's posts, newest first, each with its status and a picker to set another. A post whose status was set here
 * shows the post as the API answered the change: the listing is kept from the platform's thread dispatches, which can
 * still carry an earlier tag change for a moment.
 */
function Posts({ guild, forum }: { guild: string; forum: Forum }) {
  const [before, setBefore] = useState<string[]>([]);
  const posts = useLoad<{ posts: ForumPost[] }>(
    guildPath(guild, `/forums/${forum.forum}/posts`, { before: before.at(-1), limit: String(PAGE) }),
  );
  const set = useAction();
  const [changed, setChanged] = useState<Record<string, ForumPost>>({});
  const rows = (posts.data?.posts ?? []).map((p) => changed[p.thread] ?? p);
  const statusTags = new Set(forum.statuses.map((s) => s.tag));
  const tagName = new Map(forum.tags.map((t) => [t.id, t.name]));
  return (
    <section aria-labelledby="posts-title">
      <h2 id="posts-title">Posts</h2>
      <SaveResult action={set} />
      <Loadable
        loading={posts.loading && !posts.data}
        error={posts.error}
        empty={rows.length === 0 && before.length === 0}
        emptyText="No post in this forum yet."
      >
        <Table columns={['Post', 'Author', 'Votes', 'Created', 'Status']}>
          {rows.map((p) => {
            const current = p.tags.find((t) => statusTags.has(t)) ?? '';
            return (
              <tr key={p.thread} data-post={p.thread}>
                <td>
                  {p.title} {p.archived && <span className="badge">archived</span>}
                </td>
                <td>{p.authorName}</td>
                <td>{p.votes}</td>
                <td>
                  <When at={p.createdAt} />
                </td>
                <td>
                  <label className="sr-only" htmlFor={`post-${p.thread}`}>
                    Status of {p.title}
                  </label>
                  <select
                    id={`post-${p.thread}`}
                    value={current}
                    disabled={set.busy}
                    onChange={(e) => {
                      const tag = e.target.value;
                      void set.run(
                        async () => {
                          const post = await api<ForumPost>('PUT', guildPath(guild, `/posts/${p.thread}/status`), {
                            tag,
                          });
                          setChanged((c) => ({ ...c, [post.thread]: post }));
                        },
                        `${p.title}: ${tagName.get(tag)}.`,
                      );
                    }}
                  >
                    {current === '' && <option value="">No status</option>}
                    {forum.statuses.map((s) => (
                      <option key={s.tag} value={s.tag}>
                        {tagName.get(s.tag) ?? s.tag}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            );
          })}
        </Table>
        <Pager
          cursors={before}
          next={rows.length === PAGE ? (rows.at(-1)?.thread ?? null) : null}
          onChange={setBefore}
        />
      </Loadable>
    </section>
  );
}
