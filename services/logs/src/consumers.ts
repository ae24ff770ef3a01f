import { dispatchConsumer, eventConsumer, type Stoppable } from '@guildhall/shared';
import { watchAuditEntry } from './antinuke/detect';
import type { LogsContext } from './config';
import { caseCreated, JOURNALLED_SERVICE_EVENTS, serviceEventToJournal } from './journal/fromServiceEvents';
import { ingestPlatform, JOURNAL_DISPATCHES } from './journal/ingestPlatform';
import type { Journal } from './journal/recordEvent';
import { ingestMessages, MESSAGE_DISPATCHES } from './messages/ingestMessages';
import { editCaseLog, logNewCase } from './posting/logCase';
import { ChannelDirectory, channelsChanged } from './privacy/channelFacts';
import type { LogPolicy } from './privacy/logPolicy';
import { recordsChanged } from './rpc/recordChanges';

/**
 * Dispatches after which the channels a reader may see can differ (channel snapshots and their overwrites): once
 * they are stored, the guild's channel lists and every member record of the guild are dropped on every replica
 * (`channelsChanged`, `recordsChanged`).
 */
const STRUCTURE_DISPATCHES = new Set<string>(
  JOURNAL_DISPATCHES.filter((t) => t === 'GUILD_CREATE' || t.startsWith('CHANNEL_') || t.startsWith('THREAD_')),
);

/** Options of the consumers (from the service's config). */
export interface ConsumerOptions {
  /** Messages handed to the message writer at once. */
  batchSize: number;
}

/**
 * Starts the durable consumers: message dispatches in batches (`logs-messages`: those in threads and unknown channels
 * and those in known channels, one durable per partition covering both subjects, so a guild's messages and their
 * edits and deletes are handled in stream order whichever subject each came on; a batch is decoded and prepared while
 * the previous one is written, `pipeline` 2), other platform dispatches one by
 * one in order (`logs-journal`), audit-log entries for anti-nuke (`logs-antinuke`), and other services' events (`logs-service-events`: moderation cases, every
 * service's `settings.updated`, community's `forum.status`). Every handler that tells the bot's own actions or
 * threads from a person's waits for the bot's user id (`ctx.botUser`, resolved with retries), its message in hand.
 */
export async function startConsumers(ctx: LogsContext, journal: Journal, opts: ConsumerOptions): Promise<Stoppable[]> {
  const policy: LogPolicy = { directory: new ChannelDirectory(ctx.platform, ctx.bus), botUser: ctx.botUser };
  const stopMessages = await ctx.bus.consumeBatches(
    dispatchConsumer('logs-messages', MESSAGE_DISPATCHES, { maxAckPending: opts.batchSize * 8, pipeline: 2 }),
    opts.batchSize,
    (batch, inTurn) => ingestMessages(journal, policy, batch, inTurn),
  );
  const stopJournal = await ctx.bus.consume(dispatchConsumer('logs-journal', JOURNAL_DISPATCHES), async (msg) => {
    await ingestPlatform(journal, await ctx.botUser.id(), msg);
    if (!STRUCTURE_DISPATCHES.has(msg.data.t)) return;
    const d = msg.data.d as { guild_id?: string; id: string };
    const guild = d.guild_id ?? d.id;
    channelsChanged(ctx.bus, guild);
    recordsChanged(ctx.bus, guild, '*');
  });
  const stopAntinuke = await ctx.bus.consume(
    dispatchConsumer('logs-antinuke', ['GUILD_AUDIT_LOG_ENTRY_CREATE'] as const),
    async ({ data }) => watchAuditEntry({ platform: ctx.platform, journal, botUserId: await ctx.botUser.id() }, data.d),
  );
  const stopServices = await ctx.bus.consume(
    eventConsumer('logs-service-events', JOURNALLED_SERVICE_EVENTS),
    async ({ data: event }) => {
      if (event.type === 'settings.updated' || event.type === 'forum.status')
        return serviceEventToJournal(journal, event);
      if (event.type === 'case.created') {
        await caseCreated(journal, event);
        await logNewCase(ctx, event.data.case);
      } else await editCaseLog(ctx, event.data.case);
    },
  );
  return [stopMessages, stopJournal, stopAntinuke, stopServices].map((stop) => ({ stop }));
}
