import type { ReactNode } from 'react';

/** A checkbox followed by its label. */
export function CheckField({
  id,
  label,
  checked,
  onChange,
}: {
  id: string;
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div className="check">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** A labelled text input of at most `maxLength` characters, or a textarea when `multiline`. */
export function TextField({
  id,
  label,
  value,
  maxLength,
  multiline = false,
  onChange,
}: {
  id: string;
  label: ReactNode;
  value: string;
  maxLength: number;
  multiline?: boolean;
  onChange: (value: string) => void;
}) {
  const props = { id, maxLength, value, onChange: (e: { target: { value: string } }) => onChange(e.target.value) };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {multiline ? <textarea {...props} /> : <input {...props} />}
    </div>
  );
}
