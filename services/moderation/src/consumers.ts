import type { ServiceEvent, Stoppable } from '@guildhall/shared';
import { z } from 'zod';
import { recordLogMessage } from './cases/recordLogMessage';
import type { ModerationContext } from './config';
import { fileReport } from './reports/fileReport';

/** Data of the logs service's `case.logged` event: where it posted a case's log message. */
const CaseLogged = z.object({ caseNumber: z.number().int(), logChannel: z.string(), logMessage: z.string() });

/**
 * What moderation reacts to:
 * - `platform.dispatch.INTERACTION_CREATE`: "Report message" commands become reports (durable `moderation-reports`);
 * - `events.logs.*.case.logged`: the case's log channel/message are stored (durable `moderation-case-logged`).
 */
export async function startConsumers(ctx: ModerationContext): Promise<Stoppable[]> {
  const reports = await ctx.bus.consume<{ d: unknown }>(
    { stream: 'PLATFORM', durable: 'moderation-reports', filterSubjects: ['platform.dispatch.INTERACTION_CREATE'] },
    (msg) => fileReport(ctx.platform, ctx.outbox, ctx.logger, msg.data.d),
  );
  const logged = await ctx.bus.consume<ServiceEvent>(
    { stream: 'EVENTS', durable: 'moderation-case-logged', filterSubjects: ['events.logs.*.case.logged'] },
    async (msg) => {
      const data = CaseLogged.safeParse(msg.data.data);
      if (!data.success) {
        ctx.logger.warn({ subject: msg.subject, issues: data.error.issues }, 'ignored a malformed case.logged event');
        return;
      }
      await recordLogMessage(msg.data.guild, data.data.caseNumber, data.data.logChannel, data.data.logMessage);
    },
  );
  return [{ stop: reports }, { stop: logged }];
}
