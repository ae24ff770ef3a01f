import {
  askRpc,
  badRequest,
  broadcastInvalidation,
  type EventBus,
  type FieldError,
  type LogSettingsUpdatedEvent,
  type Outbox,
  rpcSpecs,
  settingsChanges,
} from '@guildhall/shared';
import { type ChannelDirectory, THREAD_TYPES } from '../privacy/channelFacts';
import { loadSettings, rememberSettings } from './getSettings';
import { SettingsModel, type SettingsRow } from './model';

/** The body of `PUT /logs` (destinations: absent = keep, null = off). */
export interface SettingsInput {
  ignoredChannels: string[];
  ignoreBots: boolean;
  messagesChannel?: string | null;
  membersChannel?: string | null;
  moderationChannel?: string | null;
  serverChannel?: string | null;
  logPrivateThreads?: boolean;
}

const DESTINATIONS = ['messagesChannel', 'membersChannel', 'moderationChannel', 'serverChannel'] as const;
/** Channel kinds of the structure that can receive log messages. */
const POSTABLE = new Set(['text', 'announcement']);

/** True when `id` is a thread of `guild` (threads are not in the structure; snapshots or the platform know them). */
async function isThreadOf(directory: ChannelDirectory, guild: string, id: string): Promise<boolean> {
  const facts = await directory.get(guild, id);
  return facts !== null && THREAD_TYPES.has(facts.type);
}

/**
 * Stores the log settings of `guild`. Every named channel is checked against the guild's structure (community
 * `RPC.structure`; 503 when community does not answer): ignored channels must exist (or be threads of the guild), destinations must be text or
 * announcement channels (400 naming each bad field). When something changed, emits `settings.updated`.
 */
export async function putSettings(
  deps: { bus: EventBus; outbox: Outbox<'logs'>; timeoutMs: number; directory: ChannelDirectory },
  guild: string,
  input: SettingsInput,
  by: { id: string; name: string },
): Promise<SettingsRow> {
  const structure = await askRpc(deps.bus, rpcSpecs.structure, { guild }, deps.timeoutMs);
  const kinds = new Map(structure.channels.map((c) => [c.id, c.kind]));
  const errors: FieldError[] = [];
  for (const [i, id] of input.ignoredChannels.entries()) {
    if (kinds.has(id) || (await isThreadOf(deps.directory, guild, id))) continue;
    errors.push({ field: `body.ignoredChannels.${i}`, message: `channel ${id} is not in this guild` });
  }
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
  if (input.logPrivateThreads !== undefined) set.logPrivateThreads = input.logPrivateThreads;
  const row = await SettingsModel.findOneAndUpdate(
    { _id: guild },
    { $set: set },
    { upsert: true, returnDocument: 'after' },
  ).lean<SettingsRow>();
  if (!row) throw new Error(`settings of ${guild} vanished after upsert`);
  rememberSettings(row);
  broadcastInvalidation(deps.bus, 'logs-settings', [guild]);

  const changes = settingsChanges(before, row, ['ignoredChannels', 'ignoreBots', 'logPrivateThreads', ...DESTINATIONS]);
  if (changes.length) {
    const event: LogSettingsUpdatedEvent = { actor: by.id, actorName: by.name, area: 'logs', changes };
    await deps.outbox.emit(guild, 'settings.updated', event);
  }
  return row;
}
