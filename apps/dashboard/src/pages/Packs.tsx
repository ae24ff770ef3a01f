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
/** A deletion (`Delete`) or a removal from a pack (`Remove`) whose preview is shown and waits for confirmation. */
interface Pending {
  verb: 'Delete' | 'Remove';
  what: string;
  preview: Deletion;
  confirm: () => Promise<Deletion>;
}

type Guest = Pack['guests'][number];

/** Whether this guild asks to contribute to a pack it does not own and the request stands (pending or granted). */
const asking = (pack: Pack) => pack.contributes && (pack.contribution === 'pending' || pack.contribution === 'granted');

/** How this guild takes part in a pack it does not own, from its `contributes` wish and the owner's consent. */
function standing(pack: Pack): string {
  if (pack.owner) return pack.private ? 'owned by this guild, private' : 'owned by this guild';
  if (pack.contribution === 'revoked') return 'uses only (the owner revoked contributing)';
  if (!asking(pack)) return 'uses only';
  return pack.contribution === 'granted' ? 'contributes' : 'asked to contribute (pending the owner’s approval)';
}

/**
 * Emoji and sticker packs: slots per kind, subscribed packs with their items in order (reordered by drag and drop or
 * move buttons by the owner and by contributors it consented to; the owner removes any item from its pack and deletes
 * its own items from every guild, each after its preview), the owner's guests (other guilds invited, asking to
 * contribute or contributing: approve, decline, revoke, invite by guild id) and private toggle, asking to contribute
 * and unsubscribing (shows what would be deleted first), packs to subscribe to, creating a pack, and deleting the
 * guild's own loose items (preview first).
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
  const preview = async (
    what: string,
    ask: (preview: boolean) => Promise<Deletion>,
    verb: Pending['verb'] = 'Delete',
  ) => {
    let result: Deletion | undefined;
    if ((await act.run(async () => (result = await ask(true)))) && result)
      setPending({ verb, what, preview: result, confirm: () => ask(false) });
  };
  const setGuest = (pack: Pack, other: string, contributor: boolean | null, message: string) =>
    void run(message, () =>
      contributor === null
        ? api('DELETE', guildPath(guild, `/packs/${pack.pack}/guests/${other}`))
        : api('PUT', guildPath(guild, `/packs/${pack.pack}/guests/${other}`), { contributor }),
    );
  const p = packs.data;
  return (
    <>
      <h1>Packs</h1>
      <SaveResult action={act} />
      {pending && (
        <section className="problem" aria-labelledby="preview-title">
          <h2 id="preview-title">
            {pending.verb} {pending.what}?
          </h2>
          <ul>
            {pending.preview.lines.map((l) => (
              <li key={l}>{l}</li>
            ))}
            {pending.preview.conflicts.map((c) => (
              <li key={c}>
                Not {pending.verb === 'Delete' ? 'deleted' : 'removed'}: {c}
              </li>
            ))}
          </ul>
          <div className="actions">
            <button
              type="button"
              className="danger"
              disabled={act.busy || pending.preview.lines.length === 0}
              onClick={() => {
                const { confirm, what, verb } = pending;
                setPending(null);
                setSelected([]);
                void run(`${verb === 'Delete' ? 'Deleted' : 'Removed'} ${what}.`, confirm);
              }}
            >
              {pending.verb}
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
                    <strong>{s.name}</strong> — {s.items} item{s.items === 1 ? '' : 's'}, {standing(s)}
                    <PackItems
                      pack={s}
                      guild={guild}
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
                      onRemove={(item) =>
                        void preview(
                          `${item.name} from ${s.name}`,
                          (dry) =>
                            api<Deletion>(
                              'POST',
                              guildPath(guild, `/packs/${s.pack}/items/remove`, { preview: dry ? 'true' : undefined }),
                              { ids: [item.id] },
                            ),
                          'Remove',
                        )
                      }
                    />
                    {s.owner && (
                      <PackGuests
                        pack={s}
                        busy={act.busy}
                        onSet={(other, contributor, message) => setGuest(s, other, contributor, message)}
                        onPrivate={() =>
                          void run(`${s.name} is now ${s.private ? 'public' : 'private'}.`, () =>
                            api('PATCH', guildPath(guild, `/packs/${s.pack}`), { private: !s.private }),
                          )
                        }
                      />
                    )}
                    {!s.owner && (
                      <div className="actions">
                        <button
                          type="button"
                          disabled={act.busy}
                          onClick={() =>
                            void run(`${s.name} updated.`, () =>
                              api('PUT', guildPath(guild, `/packs/${s.pack}/subscription`), {
                                contributes: !asking(s),
                              }),
                            )
                          }
                        >
                          {asking(s) ? 'Stop contributing' : 'Ask to contribute'}
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
                    <strong>{a.name}</strong>
                    {a.private && <span className="muted"> (private, this guild is invited)</span>}{' '}
                    <span className="muted">created</span> <When at={a.createdAt} />
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
 * A pack's items in the pack's order, each with the guild it comes from when that is not this guild (`guild`). The
 * owner guild and contributors it consented to reorder them by dragging an item onto another, or with the Move up /
 * Move down buttons (keyboard); each change is saved at once (`onOrder`). The owner guild removes any item from the
 * pack (`onRemove`) and deletes its own items from every guild (`onDelete`), each previewed first.
 */
function PackItems({
  pack,
  guild,
  busy,
  onOrder,
  onDelete,
  onRemove,
}: {
  pack: Pack;
  guild: string;
  busy: boolean;
  onOrder: (ids: string[]) => void;
  onDelete: (item: Pack['contents'][number]) => void;
  onRemove: (item: Pack['contents'][number]) => void;
}) {
  const [dragged, setDragged] = useState<number | null>(null);
  const items = pack.contents;
  if (items.length === 0) return <p className="empty">No item in this pack yet.</p>;
  const editable = (pack.owner || (pack.contributes && pack.contribution === 'granted')) && !busy;
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
            {item.guild !== guild && <span className="muted small"> (from guild {item.guild})</span>}
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
                <button type="button" onClick={() => onRemove(item)}>
                  Remove from pack<span className="sr-only"> {item.name}</span>…
                </button>
              )}
              {pack.owner && item.guild === guild && (
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

/** What the owner sees of a guest guild's standing. */
function guestState(g: Guest): string {
  const contribution = {
    pending: 'asks to contribute',
    granted: g.contributes ? 'contributes' : 'may contribute',
    revoked: 'contributing revoked',
    none: '',
  }[g.contribution];
  return [g.subscribed ? 'subscribed' : 'not subscribed', g.invited ? 'invited' : '', contribution]
    .filter(Boolean)
    .join(', ');
}

/**
 * The guests of a pack this guild owns: pending requests first with Approve / Decline, contributors with Revoke, other
 * guilds with Invite as contributor and, when invited, Withdraw invitation; a form inviting a guild by id (as a
 * contributor or only to see a private pack); and the private toggle. Each button calls `onSet` (`contributor`
 * null withdraws the invitation and any right) or `onPrivate`.
 */
function PackGuests({
  pack,
  busy,
  onSet,
  onPrivate,
}: {
  pack: Pack;
  busy: boolean;
  onSet: (other: string, contributor: boolean | null, message: string) => void;
  onPrivate: () => void;
}) {
  const [other, setOther] = useState('');
  const [asContributor, setAsContributor] = useState(true);
  const id = `guest-${pack.pack}`;
  return (
    <section aria-label={`Guests of ${pack.name}`}>
      <h3>Other guilds</h3>
      {pack.guests.length ? (
        <ul className="list">
          {pack.guests.map((g) => (
            <li key={g.guild} data-guest={g.guild}>
              Guild {g.guild} <span className="muted">— {guestState(g)}</span>
              <span className="actions">
                {g.contribution === 'pending' && (
                  <>
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => onSet(g.guild, true, `Guild ${g.guild} may contribute to ${pack.name}.`)}
                    >
                      Approve<span className="sr-only"> guild {g.guild}</span>
                    </button>
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => onSet(g.guild, false, `Request of guild ${g.guild} declined.`)}
                    >
                      Decline<span className="sr-only"> guild {g.guild}</span>
                    </button>
                  </>
                )}
                {g.contribution === 'granted' && (
                  <button
                    type="button"
                    className="danger"
                    disabled={busy}
                    onClick={() => onSet(g.guild, false, `Guild ${g.guild} may no longer contribute to ${pack.name}.`)}
                  >
                    Revoke<span className="sr-only"> guild {g.guild}</span>
                  </button>
                )}
                {(g.contribution === 'none' || g.contribution === 'revoked') && (
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => onSet(g.guild, true, `Guild ${g.guild} invited to contribute to ${pack.name}.`)}
                  >
                    Invite as contributor<span className="sr-only"> guild {g.guild}</span>
                  </button>
                )}
                {g.invited && (
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => onSet(g.guild, null, `Invitation of guild ${g.guild} withdrawn.`)}
                  >
                    Withdraw invitation<span className="sr-only"> guild {g.guild}</span>
                  </button>
                )}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="empty">No other guild takes part or was invited.</p>
      )}
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          onSet(other.trim(), asContributor, `Guild ${other.trim()} invited to ${pack.name}.`);
          setOther('');
        }}
      >
        <div className="field grow">
          <label htmlFor={id}>Invite guild (id)</label>
          <input
            id={id}
            inputMode="numeric"
            pattern="[0-9]{15,20}"
            value={other}
            onChange={(e) => setOther(e.target.value)}
          />
        </div>
        <div className="field">
          <input
            id={`${id}-contributor`}
            type="checkbox"
            checked={asContributor}
            onChange={(e) => setAsContributor(e.target.checked)}
          />
          <label htmlFor={`${id}-contributor`}>as a contributor</label>
        </div>
        <button type="submit" disabled={busy || !other.trim()}>
          Invite<span className="sr-only"> to {pack.name}</span>
        </button>
      </form>
      <div className="actions">
        <button type="button" disabled={busy} onClick={onPrivate} aria-pressed={pack.private}>
          Private<span className="sr-only"> {pack.name}</span>
        </button>
        <span className="muted small">
          {pack.private ? 'Only invited guilds see and subscribe to it.' : 'Every guild with Guildhall can subscribe.'}
        </span>
      </div>
    </section>
  );
}
