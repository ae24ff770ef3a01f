import { useState } from 'react';
import { useParams } from 'react-router';
import { api, guildPath } from '../api';
import { Loadable, SaveResult, When } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import type { Pack, Packs } from '../types';

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
 * Emoji and sticker packs: slots per kind, subscribed packs with their items in order (reordered by drag and drop or
 * move buttons; the owner deletes an item after its preview), unsubscribing (shows what would be deleted first), packs
 * to subscribe to, creating a pack, and deleting the guild's own loose items (preview first).
 */
export function PacksPage() {
  const { guild = '' } = useParams();
  useTitle('Packs');
  const packs = useLoad<Packs>(guildPath(guild, '/packs'));
  const act = useAction();
  const [pending, setPending] = useState<Pending | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [name, setName] = useState('');
  const run = async (message: string, fn: () => Promise<unknown>) => {
    if (await act.run(fn, message)) packs.reload();
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
      <SaveResult action={act} />
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
                    {s.owner ? 'owned by this guild' : s.contributes ? 'contributes' : 'uses only'}
                    <PackItems
                      pack={s}
                      busy={act.busy}
                      onOrder={(ids) =>
                        void run(`Order of ${s.name} saved.`, () =>
                          api('PUT', guildPath(guild, `/packs/${s.pack}/items`), { ids }),
                        )
                      }
                      onDelete={(item) =>
                        void preview(`${item.name} from every guild`, (dry) =>
                          api<Deletion>(
                            'POST',
                            guildPath(guild, '/items/delete', { preview: dry ? 'true' : undefined }),
                            {
                              ids: [item.id],
                            },
                          ),
                        )
                      }
                    />
                    {!s.owner && (
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
                                guildPath(guild, `/packs/${s.pack}/subscription`, {
                                  preview: dry ? 'true' : undefined,
                                }),
                              ),
                            )
                          }
                        >
                          Unsubscribe<span className="sr-only"> from {s.name}</span>
                        </button>
                      </div>
                    )}
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

/**
 * A pack's items in the pack's order. The owner guild and contributing guilds reorder them by dragging an item onto
 * another, or with the Move up / Move down buttons (keyboard); each change is saved at once (`onOrder`). The owner
 * guild can delete an item from every guild (`onDelete`, which previews first).
 */
function PackItems({
  pack,
  busy,
  onOrder,
  onDelete,
}: {
  pack: Pack;
  busy: boolean;
  onOrder: (ids: string[]) => void;
  onDelete: (item: Pack['contents'][number]) => void;
}) {
  const [dragged, setDragged] = useState<number | null>(null);
  const items = pack.contents;
  if (items.length === 0) return <p className="empty">No item in this pack yet.</p>;
  const editable = (pack.owner || pack.contributes) && !busy;
  const move = (from: number, to: number) => {
    if (from === to || to < 0 || to >= items.length) return;
    const ids = items.map((i) => i.id);
    const [id] = ids.splice(from, 1);
    ids.splice(to, 0, id as string);
    onOrder(ids);
  };
  return (
    <ol className="pack-items" aria-label={`Items of ${pack.name}`}>
      {items.map((item, i) => (
        <li
          key={item.id}
          data-item={item.id}
          draggable={editable}
          className={dragged === i ? 'dragging' : undefined}
          onDragStart={(e) => {
            e.dataTransfer.effectAllowed = 'move';
            e.dataTransfer.setData('text/plain', item.id);
            setDragged(i);
          }}
          onDragEnd={() => setDragged(null)}
          onDragOver={(e) => {
            if (dragged !== null) e.preventDefault();
          }}
          onDrop={(e) => {
            e.preventDefault();
            if (dragged !== null) move(dragged, i);
            setDragged(null);
          }}
        >
          {item.kind === 'sticker' && item.url.endsWith('.json') ? (
            <span className="item-image muted">Lottie</span>
          ) : (
            <img className="item-image" src={item.url} alt="" width={32} height={32} loading="lazy" />
          )}
          <span className="item-name">
            {item.kind === 'sticker' ? item.name : `:${item.name}:`}
            {!item.held && <span className="muted small"> (not in this guild)</span>}
          </span>
          {editable && (
            <span className="actions">
              <button type="button" disabled={i === 0} onClick={() => move(i, i - 1)}>
                Move up<span className="sr-only"> {item.name}</span>
              </button>
              <button type="button" disabled={i === items.length - 1} onClick={() => move(i, i + 1)}>
                Move down<span className="sr-only"> {item.name}</span>
              </button>
              {pack.owner && (
                <button type="button" className="danger" onClick={() => onDelete(item)}>
                  Delete<span className="sr-only"> {item.name}</span>…
                </button>
              )}
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}
