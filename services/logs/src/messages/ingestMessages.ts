import type { BusMessage, Dispatch } from '@guildhall/shared';
import { type AttachmentOwner, queueAttachments, snowflakeTime, sortKey } from '@guildhall/shared';
import {
  type APIAttachment,
  type GatewayMessageCreateDispatchData,
  type GatewayMessageDeleteDispatchData,
  MessageReferenceType,
} from 'discord-api-types/v10';
import type { Collection } from 'mongodb';
import { dispatchKey, displayName } from '../dispatch';
import type { Journal } from '../journal/recordEvent';
import { isLogged, type LogPolicy } from '../privacy/logPolicy';
import { cachedSettings } from '../settings/getSettings';
import { MESSAGE_TTL_SECONDS, MessageModel, type MessageRow } from './model';

/** The dispatches this module stores. */
export const MESSAGE_DISPATCHES = [
  'MESSAGE_CREATE',
  'MESSAGE_UPDATE',
  'MESSAGE_DELETE',
  'MESSAGE_DELETE_BULK',
] as const;

/**
 * Handles a batch of message dispatches in stream order: runs of MESSAGE_CREATE are written with one unordered
 * `insertMany` (a duplicate key means already stored), edits and deletions one by one with conditional updates
 * (an edit that does not change the content, or a second deletion, changes nothing). Messages the privacy rules
 * exclude (`isLogged`: ignored channels and their threads, private and ticket threads, bots when `ignoreBots`) are
 * neither stored nor journaled. Nothing is decided on unknown facts: while a message's channel facts cannot be
 * fetched (or the bot's user id is not known yet), this throws, and the bus retries the message in place, the
 * messages after it in its partition waiting (docs/bus.md, "Failures and dead letters"); it is stored or left out
 * once they are known, never dropped meanwhile. The attachments of stored new messages, and files an edit adds, are queued for the
 * archive (downloaded in the background, never in this batch; kept for the message's 7 days). New messages are
 * turned into rows first; the message collection is read or written only once `inTurn` resolves (the consumer's
 * previous batch settled), so a batch is prepared while the one before it is written.
 */
export async function ingestMessages(
  journal: Journal,
  policy: LogPolicy,
  batch: BusMessage<Dispatch>[],
  inTurn: () => Promise<void> = async () => {},
): Promise<void> {
  const logged = batchDecisions(policy);
  let creates: Captured[] = [];
  let inOrder = false;
  const flushCreates = async () => {
    if (!inOrder) {
      await inTurn();
      inOrder = true;
    }
    if (creates.length) await insertNew(creates.map((c) => c.row));
    const withFiles = creates.filter((c) => c.files.length);
    await queueAttachments(withFiles.map(({ row, files }) => ({ owner: archiveOwner(row), attachments: files })));
    creates = [];
  };
  for (const msg of batch) {
    const dispatch = msg.data;
    if (dispatch.t === 'MESSAGE_CREATE') {
      const captured = await toRow(logged, dispatch.d as GatewayMessageCreateDispatchData);
      if (captured) creates.push(captured);
      continue;
    }
    await flushCreates();
    if (dispatch.t === 'MESSAGE_UPDATE')
      await applyEdit(journal, logged, msg as BusMessage<Dispatch<'MESSAGE_UPDATE'>>);
    else if (dispatch.t === 'MESSAGE_DELETE')
      await applyDelete(journal, dispatch.d as GatewayMessageDeleteDispatchData);
    else if (dispatch.t === 'MESSAGE_DELETE_BULK') {
      await applyBulkDelete(journal, policy, dispatch as Dispatch<'MESSAGE_DELETE_BULK'>);
    }
  }
  await flushCreates();
}

/**
 * What a message shows: for a forward (reference type 1) the forwarded message's text, files, embeds and stickers
 * (`message_snapshots[0].message`), else the message's own.
 */
function shown(d: GatewayMessageCreateDispatchData) {
  const forward = d.message_reference?.type === MessageReferenceType.Forward ? d.message_snapshots?.[0]?.message : null;
  const m = forward ?? d;
  return {
    files: (m.attachments ?? []) as APIAttachment[],
    content: m.content ?? '',
    attachments: (m.attachments ?? []).map((a) => a.url),
    embeds: (m.embeds ?? []) as unknown as Array<Record<string, unknown>>,
    stickers: (m.sticker_items ?? []).map((s) => ({ id: s.id, name: s.name })),
    forwardOf: forward
      ? {
          guild: d.message_reference?.guild_id ?? null,
          channel: d.message_reference?.channel_id ?? null,
          message: d.message_reference?.message_id ?? null,
        }
      : null,
  };
}

/** A message to store and the files it shows (queued for the archive once stored). */
interface Captured {
  row: MessageRow;
  files: APIAttachment[];
}

/** Archive owner of a logged message's files: they expire with the message's content (7 days from the message). */
function archiveOwner(row: MessageRow): AttachmentOwner {
  const expiresAt = new Date(row.createdAt.getTime() + MESSAGE_TTL_SECONDS * 1000);
  return { guild: row.guild, message: row._id, channel: row.channel, expiresAt };
}

/** Whether a message of `bot` or not in `channel` of `guild` is logged (`isLogged` with the guild's settings). */
type Decisions = (guild: string, channel: string, bot: boolean) => Promise<boolean>;

/**
 * `isLogged` for one batch, decided once per guild, channel and bot flag: a batch's messages share a few channels,
 * and the settings and channel facts behind the decision are memoised for seconds anyway (`cachedSettings`,
 * `ChannelDirectory`), so asking again within a batch could only answer the same.
 */
function batchDecisions(policy: LogPolicy): Decisions {
  const decided = new Map<string, Promise<boolean>>();
  return (guild, channel, bot) => {
    const key = `${guild}:${channel}:${bot}`;
    let decision = decided.get(key);
    if (!decision) {
      decision = cachedSettings(guild).then((settings) => isLogged(policy, settings, channel, bot));
      decided.set(key, decision);
    }
    return decision;
  };
}

async function toRow(logged: Decisions, d: GatewayMessageCreateDispatchData): Promise<Captured | null> {
  if (!d.guild_id) return null;
  const bot = Boolean(d.author.bot || d.webhook_id);
  if (!(await logged(d.guild_id, d.channel_id, bot))) return null;
  const reference = d.message_reference;
  const isReply =
    reference?.message_id && (reference.type ?? MessageReferenceType.Default) === MessageReferenceType.Default;
  const { files, ...view } = shown(d);
  const row: MessageRow = {
    _id: d.id,
    key: sortKey(d.id),
    guild: d.guild_id,
    channel: d.channel_id,
    author: d.author.id,
    authorName: displayName(d.author, d.member?.nick),
    bot,
    ...view,
    original: view.content,
    replyTo: isReply ? (reference?.message_id ?? null) : null,
    editedAt: d.edited_timestamp ? new Date(d.edited_timestamp) : null,
    deletedAt: null,
    createdAt: snowflakeTime(d.id),
  };
  return { row, files };
}

/** What a deleted message carried besides its text (journaled with `message_delete` and bulk deletes). */
function carried(m: MessageRow) {
  return { embeds: m.embeds ?? [], stickers: m.stickers ?? [], forwardOf: m.forwardOf ?? null };
}

async function insertNew(rows: MessageRow[]): Promise<void> {
  try {
    const collection = MessageModel.collection as unknown as Collection<MessageRow>;
    await collection.insertMany(rows, { ordered: false });
  } catch (err) {
    const writeErrors = (err as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> }).writeErrors;
    const codes = (writeErrors ?? []).map((e) => e.code ?? e.err?.code);
    const onlyDuplicates =
      (err as { code?: number }).code === 11000 || (codes.length > 0 && codes.every((c) => c === 11000));
    if (!onlyDuplicates) throw err;
  }
}

/**
 * The files of an edit of a stored message: its attachments become the edit's (a forward keeps the forwarded files)
 * and files the edit added are queued for the archive (one already queued keeps its row, so redelivered edits and
 * the unchanged files of a text edit are not queued twice). Messages not stored (not logged) are left alone.
 */
async function applyEditedFiles(guild: string, message: string, files: APIAttachment[]): Promise<void> {
  const urls = files.map((a) => a.url);
  const row = await MessageModel.findOne({ _id: message, guild, forwardOf: null }).lean<MessageRow>();
  if (!row) return;
  if ((row.attachments ?? []).join('\n') !== urls.join('\n')) {
    await MessageModel.updateOne({ _id: message, guild }, { $set: { attachments: urls } });
  }
  await queueAttachments([{ owner: archiveOwner(row), attachments: files }]);
}

/**
 * MESSAGE_UPDATE of a stored message: journals `message_edit` (before, after, original), then stores the new text.
 * Journaled first: a crash between the two steps redelivers the edit, which still finds the old text stored and
 * journals it again under the same dedupe key (stored once). An edit of a message not stored, carrying its author, is
 * stored as new (its text is then the earliest known).
 */
async function applyEdit(
  journal: Journal,
  logged: Decisions,
  msg: BusMessage<Dispatch<'MESSAGE_UPDATE'>>,
): Promise<void> {
  const d = msg.data.d;
  if (!d.guild_id) return;
  if (Array.isArray(d.attachments)) await applyEditedFiles(d.guild_id, d.id, d.attachments);
  if (typeof d.content !== 'string') return;
  const editedAt = d.edited_timestamp ? new Date(d.edited_timestamp) : new Date();
  const happened = d.edited_timestamp ? editedAt : undefined;
  const before = await MessageModel.findOne({ _id: d.id, guild: d.guild_id }).lean<MessageRow>();
  if (!before) {
    const captured = d.author ? await toRow(logged, d as GatewayMessageCreateDispatchData) : null;
    if (captured) {
      await insertNew([{ ...captured.row, editedAt }]);
      await queueAttachments([{ owner: archiveOwner(captured.row), attachments: captured.files }]);
    }
    return;
  }
  if (before.content === d.content) return;
  await journal.record({
    guild: before.guild,
    kind: 'message_edit',
    target: before.author,
    targetName: before.authorName,
    channel: before.channel,
    data: { message: before._id, before: before.content, after: d.content, original: before.original },
    dedupe: `message_edit:${d.id}:${d.edited_timestamp ?? dispatchKey(msg)}`,
    actor: { id: before.author, name: before.authorName, source: 'author', viaService: false },
    at: happened,
  });
  await MessageModel.updateOne({ _id: d.id, guild: d.guild_id }, { $set: { content: d.content, editedAt } });
}

/**
 * MESSAGE_DELETE of a stored message: journals `message_delete`, then marks it deleted (journaled first, as edits)
 * and tells `journal.membersChanged` of the author (their member record lists it now).
 */
async function applyDelete(journal: Journal, d: GatewayMessageDeleteDispatchData): Promise<void> {
  if (!d.guild_id) return;
  const before = await MessageModel.findOne({ _id: d.id, guild: d.guild_id, deletedAt: null }).lean<MessageRow>();
  if (!before) return;
  await journal.record({
    guild: before.guild,
    kind: 'message_delete',
    target: before.author,
    targetName: before.authorName,
    channel: before.channel,
    data: {
      message: before._id,
      content: before.content,
      attachments: before.attachments,
      ...carried(before),
      sentAt: before.createdAt.toISOString(),
    },
    dedupe: `message_delete:${d.id}`,
    actor: { id: before.author, name: before.authorName, source: 'author', viaService: false },
  });
  await MessageModel.updateOne({ _id: d.id, guild: d.guild_id, deletedAt: null }, { $set: { deletedAt: new Date() } });
  journal.membersChanged(before.guild, [before.author]);
}

async function applyBulkDelete(
  journal: Journal,
  policy: LogPolicy,
  dispatch: Dispatch<'MESSAGE_DELETE_BULK'>,
): Promise<void> {
  const d = dispatch.d;
  if (!d.guild_id || !d.ids?.length) return;
  if (!(await isLogged(policy, await cachedSettings(d.guild_id), d.channel_id, false))) return;
  const deletedAt = new Date();
  const known = await MessageModel.find({ _id: { $in: d.ids }, guild: d.guild_id, deletedAt: null }).lean<
    MessageRow[]
  >();
  await journal.record({
    guild: d.guild_id,
    kind: 'message_bulk_delete',
    target: d.channel_id,
    targetName: null,
    channel: d.channel_id,
    data: {
      count: d.ids.length,
      ids: d.ids,
      messages: known.map((m) => ({
        id: m._id,
        author: m.author,
        authorName: m.authorName,
        content: m.content,
        attachments: m.attachments,
        ...carried(m),
      })),
    },
    dedupe: `message_bulk_delete:${d.channel_id}:${[...d.ids].sort().join(',')}`,
  });
  // marked deleted after the journal event (as single deletions), so a redelivery still finds what it held
  if (known.length) {
    await MessageModel.updateMany({ _id: { $in: known.map((m) => m._id) }, deletedAt: null }, { $set: { deletedAt } });
    journal.membersChanged(
      d.guild_id,
      known.map((m) => m.author),
    );
  }
}
