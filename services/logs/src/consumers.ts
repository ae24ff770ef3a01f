import { Routes, type ServiceContext, type ServiceEvent, type Stoppable } from '@guildhall/shared';
import type { APIUser } from 'discord-api-types/v10';
import type { Dispatch } from './dispatch';
import { caseCreated, serviceEventToJournal } from './journal/fromServiceEvents';
import { ingestPlatform, JOURNAL_DISPATCHES } from './journal/ingestPlatform';
import type { Journal } from './journal/recordEvent';
import { ingestMessages, MESSAGE_DISPATCHES } from './messages/ingestMessages';
import { caseOf, editCaseLog, logNewCase } from './posting/logCase';

/** Options of the consumers (from the service's config). */
export interface ConsumerOptions {
  /** Messages handed to the message writer at once. */
  batchSize: number;
}

/** This service's bot user id (to mark its own audit-log entries `viaService`); null when the platform does not say. */
async function botUser(ctx: ServiceContext): Promise<string | null> {
  try {
    return ((await ctx.platform.get(Routes.user())) as APIUser).id;
  } catch (err) {
    ctx.logger.warn({ err }, 'could not read the bot user; audit entries of the bot will not be marked viaService');
    return null;
  }
}

/**
 * Starts the durable consumers: message dispatches in batches (`logs-messages`), other platform dispatches one by
 * one in order (`logs-journal`), and other services' events (`logs-service-events`: moderation cases, every
 * service's `settings.updated`, community's `forum.status`).
 */
export async function startConsumers(
  ctx: ServiceContext,
  journal: Journal,
  opts: ConsumerOptions,
): Promise<Stoppable[]> {
  const botUserId = await botUser(ctx);
  const stopMessages = await ctx.bus.consumeBatches<Dispatch>(
    {
      stream: 'PLATFORM',
      durable: 'logs-messages',
      filterSubjects: MESSAGE_DISPATCHES.map((t) => `platform.dispatch.${t}`),
      maxAckPending: opts.batchSize * 8,
    },
    opts.batchSize,
    (batch) => ingestMessages(journal, batch),
  );
  const stopJournal = await ctx.bus.consume<Dispatch>(
    {
      stream: 'PLATFORM',
      durable: 'logs-journal',
      filterSubjects: JOURNAL_DISPATCHES.map((t) => `platform.dispatch.${t}`),
    },
    (msg) => ingestPlatform(journal, botUserId, msg),
  );
  const stopServices = await ctx.bus.consume<ServiceEvent<Record<string, unknown>>>(
    {
      stream: 'EVENTS',
      durable: 'logs-service-events',
      filterSubjects: ['events.moderation.*.case.>', 'events.*.*.settings.updated', 'events.community.*.forum.status'],
    },
    async ({ data: event }) => {
      if (event.type === 'settings.updated' || event.type === 'forum.status')
        return serviceEventToJournal(journal, event);
      const c = caseOf(event.data);
      if (!c) {
        ctx.logger.warn({ type: event.type, id: event.id }, 'case event without a Case in data; skipped');
        return;
      }
      if (event.type === 'case.created') {
        await caseCreated(journal, event, c);
        await logNewCase(ctx, c);
      } else await editCaseLog(ctx, c);
    },
  );
  return [stopMessages, stopJournal, stopServices].map((stop) => ({ stop }));
}
