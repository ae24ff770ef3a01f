import {
  badRequest,
  type EventBus,
  type FieldError,
  type LogSettingsUpdatedEvent,
  type Outbox,
  RPC,
  type StructureReply,
  type StructureRequest,
  settingsChanges,
} from '@guildhall/shared';
import { loadSettings, rememberSettings } from './getSettings';
import { Settings, type SettingsRow } from './model';

/** The body of `PUT /logs` (destinations: absent = keep, null = off). */
export interface SettingsInput {
  ignoredChannels: string[];
  ignoreBots: boolean;
  messagesChannel?: string | null;
  membersChannel?: string | null;
  moderationChannel?: string | null;
  serverChannel?: string | null;
}

const DESTINATIONS = ['messagesChannel', 'membersChannel', 'moderationChannel', 'serverChannel'] as const;
/** Channel kinds of the structure that can receive log messages. */
const POSTABLE = new Set(['text', 'announcement']);

/**
 * Stores the log settings of `guild`. Every named channel is checked against the guild's structure (community
 * `RPC.structure`; 503 when community does not answer): ignored channels must exist, destinations must be text or
 * announcement channels (400 naming each bad field). When something changed, emits `settings.updated`.
 */
export async function putSettings(
  deps: { bus: EventBus; outbox: Outbox; timeoutMs: number },
  guild: string,
  input: SettingsInput,
  by: { id: string; name: string },
): Promise<SettingsRow> {
  const structure = await deps.bus.request<StructureReply>(
    RPC.structure,
    { guild } satisfies StructureRequest,
    deps.timeoutMs,
  );
  const kinds = new Map(structure.channels.map((c) => [c.id, c.kind]));
  const errors: FieldError[] = [];
  input.ignoredChannels.forEach((id, i) => {
    if (!kinds.has(id))
      errors.push({ field: `body.ignoredChannels.${i}`, message: `channel ${id} is not in this guild` });
  });
  for (const field of DESTINATIONS) {
    const id = input[field];
    if (!id) continue;
    const kind = kinds.get(id);
    if (!kind) errors.push({ field: `body.${field}`, message: `channel ${id} is not in this guild` });
    else if (!POSTABLE.has(kind))
      errors.push({ field: `body.${field}`, message: `channel ${id} is a ${kind} channel, not a text channel` });
  }
  if (errors.length) throw badRequest('Some channels are not usable in this guild', errors);

  const before = await loadSettings(guild);
  const set: Partial<SettingsRow> = {
    ignoredChannels: [...new Set(input.ignoredChannels)],
    ignoreBots: input.ignoreBots,
    updatedAt: new Date(),
  };
  for (const field of DESTINATIONS) if (input[field] !== undefined) set[field] = input[field] ?? null;
  const row = await Settings.findOneAndUpdate(
    { _id: guild },
    { $set: set },
    { upsert: true, returnDocument: 'after' },
  ).lean<SettingsRow>();
  if (!row) throw new Error(`settings of ${guild} vanished after upsert`);
  rememberSettings(row);

  const changes = settingsChanges(before, row, ['ignoredChannels', 'ignoreBots', ...DESTINATIONS]);
  if (changes.length) {
    const event: LogSettingsUpdatedEvent = { actor: by.id, actorName: by.name, area: 'logs', changes };
    await deps.outbox.emit(guild, 'settings.updated', event);
  }
  return row;
}
