import { useState } from 'react';
import { useSearchParams } from 'react-router';

/**
 * List filters kept in the URL's query string (`keys`, '' when absent) with the list's paging cursors: changing a
 * filter replaces the history entry and goes back to the first page.
 */
export function useUrlFilters<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const [cursors, setCursors] = useState<string[]>([]);
  const filters = Object.fromEntries(keys.map((key) => [key, params.get(key) ?? ''])) as Record<K, string>;
  const setFilters = (changes: Partial<Record<K, string>>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries<string | undefined>(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setCursors([]);
    setParams(next, { replace: true });
  };
  return { filters, setFilters, cursors, setCursors };
}

/** A labelled select of `options` (each its own label), led by an "any" choice with value '' unless `any` is null. */
export function SelectField({
  id,
  label,
  value,
  options,
  any = 'Any',
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  options: readonly string[];
  any?: string | null;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {any !== null && <option value="">{any}</option>}
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </div>
  );
}

/** A labelled snowflake input of a filter form (named `name`), committed trimmed when it loses focus. */
export function IdField({
  id,
  name,
  label,
  value,
  onCommit,
}: {
  id: string;
  name: string;
  label: string;
  value: string;
  onCommit: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        inputMode="numeric"
        defaultValue={value}
        onBlur={(e) => onCommit(e.target.value.trim())}
      />
    </div>
  );
}
