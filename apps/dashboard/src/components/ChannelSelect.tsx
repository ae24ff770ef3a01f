import type { Channel } from '../types';

/** Channels of the guild's structure that can receive messages, sorted by position, for a <select>. */
export function textChannels(channels: Channel[]): Channel[] {
  return channels.filter((c) => c.kind === 'text' || c.kind === 'announcement').sort((a, b) => a.position - b.position);
}

/** A labelled channel picker; `allowNone` adds an "Off" choice (null). */
export function ChannelSelect({
  id,
  label,
  channels,
  value,
  onChange,
  allowNone = true,
}: {
  id: string;
  label: string;
  channels: Channel[];
  value: string | null;
  onChange: (value: string | null) => void;
  allowNone?: boolean;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value || null)}>
        {allowNone && <option value="">Off</option>}
        {channels.map((c) => (
          <option key={c.id} value={c.id}>
            #{c.name}
          </option>
        ))}
      </select>
    </div>
  );
}
