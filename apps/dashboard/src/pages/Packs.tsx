import { useState } from 'react';
import { useParams } from 'react-router';
import { api, guildPath } from '../api';
import { Loadable, Problem, When } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';

interface Packs {
  enabled: boolean;
  packs: Array<{ pack: string; name: string; position: number; contributes: boolean; items: number }>;
  available: Array<{ id: string; name: string; createdAt: string }>;
  loose: Array<{ id: string; kind: string; name: string; animated: boolean; url: string }>;
  slots: Array<{ kind: string; used: number; limit: number }>;
}
interface Deletion {
  applied: boolean;
  lines: string[];
  conflicts: string[];
}
/** A deletion whose preview is shown and waits for confirmation. */
interface Pending {
  what: string;
  preview: Deletion;
  confirm: () => Promise<Deletion>;
}

/**
 * Emoji and sticker packs: slots per kind, subscribed packs (unsubscribe shows what would be deleted first), packs to
 * subscribe to, creating a pack, and deleting the guild's own loose items (preview first).
 */
export function PacksPage() {
  const { guild = '' } = useParams();
  useTitle('Packs');
  const packs = useLoad<Packs>(guildPath(guild, '/packs'));
  const act = useAction();
  const [pending, setPending] = useState<Pending | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [done, setDone] = useState('');
  const run = async (message: string, fn: () => Promise<unknown>) => {
    setDone('');
    if (await act.run(fn)) {
      setDone(message);
      packs.reload();
    }
  };
  const preview = async (what: string, ask: (preview: boolean) => Promise<Deletion>) => {
    let result: Deletion | undefined;
    if ((await act.run(async () => (result = await ask(true)))) && result)
      setPending({ what, preview: result, confirm: () => ask(false) });
  };
  const p = packs.data;
  return (
    <>
      <h1>Packs</h1>
      <Problem error={act.error} />
      {done && (
        <p className="ok" role="status">
          {done}
        </p>
      )}
      {pending && (
        <section className="problem" aria-labelledby="preview-title">
          <h2 id="preview-title">Delete {pending.what}?</h2>
          <ul>
            {pending.preview.lines.map((l) => (
              <li key={l}>{l}</li>
            ))}
            {pending.preview.conflicts.map((c) => (
              <li key={c}>Not deleted: {c}</li>
            ))}
          </ul>
          <div className="actions">
            <button
              type="button"
              className="danger"
              disabled={act.busy || pending.preview.lines.length === 0}
              onClick={() => {
                const { confirm, what } = pending;
                setPending(null);
                setSelected([]);
                void run(`Deleted ${what}.`, confirm);
              }}
            >
              Delete
            </button>
            <button type="button" onClick={() => setPending(null)}>
              Cancel
            </button>
          </div>
        </section>
      )}
      <Loadable loading={packs.loading && !p} error={packs.error}>
        {p && (
          <>
            {!p.enabled && <p className="muted">Packs are off for this guild until it takes part in one.</p>}
            <h2>Slots</h2>
            <ul className="list">
              {p.slots.map((s) => (
                <li key={s.kind}>
                  {s.kind.replace('_', ' ')}: {s.used} of {s.limit} used
                </li>
              ))}
            </ul>
            <h2>Subscribed packs</h2>
            {p.packs.length ? (
              <ol className="list">
                {p.packs.map((s) => (
                  <li key={s.pack}>
                    <strong>{s.name}</strong> — {s.items} item{s.items === 1 ? '' : 's'},{' '}
                    {s.contributes ? 'contributes' : 'uses only'}
                    <div className="actions">
                      <button
                        type="button"
                        disabled={act.busy}
                        onClick={() =>
                          void run(`${s.name} updated.`, () =>
                            api('PUT', guildPath(guild, `/packs/${s.pack}/subscription`), {
                              contributes: !s.contributes,
                            }),
                          )
                        }
                      >
                        {s.contributes ? 'Stop contributing' : 'Contribute'}
                        <span className="sr-only"> to {s.name}</span>
                      </button>
                      <button
                        type="button"
                        className="danger"
                        disabled={act.busy}
                        onClick={() =>
                          void preview(`the copies of ${s.name}`, (dry) =>
                            api<Deletion>(
                              'DELETE',
                              guildPath(guild, `/packs/${s.pack}/subscription`, { preview: dry ? 'true' : undefined }),
                            ),
                          )
                        }
                      >
                        Unsubscribe<span className="sr-only"> from {s.name}</span>
                      </button>
                    </div>
                  </li>
                ))}
              </ol>
            ) : (
              <p className="empty">No subscribed pack.</p>
            )}
            <h2>Available packs</h2>
            {p.available.length ? (
              <ul className="list">
                {p.available.map((a) => (
                  <li key={a.id}>
                    <strong>{a.name}</strong> <span className="muted">created</span> <When at={a.createdAt} />
                    <div className="actions">
                      <button
                        type="button"
                        disabled={act.busy}
                        onClick={() =>
                          void run(`Subscribed to ${a.name}.`, () =>
                            api('PUT', guildPath(guild, `/packs/${a.id}/subscription`), { contributes: false }),
                          )
                        }
                      >
                        Subscribe<span className="sr-only"> to {a.name}</span>
                      </button>
                    </div>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="empty">No other pack to subscribe to.</p>
            )}
            <form
              className="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                void run(`Pack ${name} created.`, async () => {
                  await api('POST', guildPath(guild, '/packs'), { name });
                  setName('');
                });
              }}
            >
              <div className="field grow">
                <label htmlFor="pack-name">New pack name</label>
                <input id="pack-name" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
              </div>
              <button type="submit" disabled={act.busy}>
                Create pack
              </button>
            </form>
            <h2>Items in no pack</h2>
            {p.loose.length ? (
              <>
                <ul className="cards">
                  {p.loose.map((i) => (
                    <li key={i.id} className="card">
                      <input
                        id={`item-${i.id}`}
                        type="checkbox"
                        checked={selected.includes(i.id)}
                        onChange={(e) =>
                          setSelected(e.target.checked ? [...selected, i.id] : selected.filter((x) => x !== i.id))
                        }
                      />
                      <label htmlFor={`item-${i.id}`}>
                        {i.name} <span className="muted">({i.kind.replace('_', ' ')})</span>
                      </label>
                    </li>
                  ))}
                </ul>
                <button
                  type="button"
                  className="danger"
                  disabled={act.busy || selected.length === 0}
                  onClick={() =>
                    void preview(`${selected.length} item(s)`, (dry) =>
                      api<Deletion>('POST', guildPath(guild, '/items/delete', { preview: dry ? 'true' : undefined }), {
                        ids: selected,
                      }),
                    )
                  }
                >
                  Delete selected…
                </button>
              </>
            ) : (
              <p className="empty">No loose items.</p>
            )}
          </>
        )}
      </Loadable>
    </>
  );
}
