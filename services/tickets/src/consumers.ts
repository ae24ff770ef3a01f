import { dispatchConsumer, type Stoppable } from '@guildhall/shared';
import type { TicketsContext } from './config';
import { handleInteraction } from './interactions/handleInteraction';
import { captureMessageDispatches, TICKET_MESSAGE_DISPATCHES } from './messages/captureMessage';

/** Message dispatches handed to the transcript capture at once (their tickets are read with one query). */
const MESSAGE_BATCH = 200;

/**
 * The platform dispatches this service reacts to: INTERACTION_CREATE (panel buttons, questions modal, ticket
 * buttons, the `/ticket` command) and MESSAGE_CREATE/UPDATE/DELETE/DELETE_BULK (the messages of ticket threads, in batches of up to
 * `MESSAGE_BATCH` in stream order). A ticket is always a private thread (`openTicket`), so of the message dispatches
 * only those not published as in a known channel (`messagesIn: 'threads'`: threads, and channels the bridge did not
 * know) are received: most of a guild's messages never reach this service. Durable consumers, so nothing is lost
 * while the service is down; every handler is idempotent.
 */
export async function startConsumers(ctx: TicketsContext): Promise<Stoppable[]> {
  const interactions = await ctx.bus.consume(dispatchConsumer('tickets-interactions', ['INTERACTION_CREATE']), (msg) =>
    handleInteraction(ctx, msg.data.d),
  );
  const messages = await ctx.bus.consumeBatches(
    dispatchConsumer('tickets-messages', TICKET_MESSAGE_DISPATCHES, { messagesIn: 'threads' }),
    MESSAGE_BATCH,
    (batch) =>
      captureMessageDispatches(
        ctx,
        batch.map((m) => m.data),
      ),
  );
  return [{ stop: interactions }, { stop: messages }];
}
