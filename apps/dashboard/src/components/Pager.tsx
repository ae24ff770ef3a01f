/**
 * Cursor paging of the API's lists (`before` = the cursor of the page before): "Newer" goes back through the
 * cursors seen so far, "Older" follows `next` (disabled when null) — the answer's `next`, or the last item's id for
 * lists paged by id (journal, messages).
 */
export function Pager({
  cursors,
  next,
  onChange,
}: {
  cursors: string[];
  next: string | null;
  onChange: (cursors: string[]) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={cursors.length === 0} onClick={() => onChange(cursors.slice(0, -1))}>
        ← Newer
      </button>
      <span className="muted">Page {cursors.length + 1}</span>
      <button type="button" disabled={next === null} onClick={() => next !== null && onChange([...cursors, next])}>
        Older →
      </button>
    </nav>
  );
}
