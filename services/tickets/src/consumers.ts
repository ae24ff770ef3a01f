import { dispatchConsumer, type Stoppable } from '@guildhall/shared';
import type { TicketsContext } from './config';
import { handleInteraction } from './interactions/handleInteraction';
import { captureBulkDelete, captureDelete, captureEdit, captureMessage } from './messages/captureMessage';

/**
 * The platform dispatches this service reacts to: INTERACTION_CREATE (panel buttons, questions modal, ticket
 * buttons) and MESSAGE_CREATE/UPDATE/DELETE/DELETE_BULK (the messages of ticket threads). Durable consumers, so
 * nothing is lost while the service is down; every handler is idempotent.
 */
export async function startConsumers(ctx: TicketsContext): Promise<Stoppable[]> {
  const interactions = await ctx.bus.consume(dispatchConsumer('tickets-interactions', ['INTERACTION_CREATE']), (msg) =>
    handleInteraction(ctx, msg.data.d),
  );
  const messages = await ctx.bus.consume(
    dispatchConsumer('tickets-messages', ['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK']),
    async ({ data: dispatch }) => {
      if (dispatch.t === 'MESSAGE_CREATE') await captureMessage(ctx, dispatch.d);
      else if (dispatch.t === 'MESSAGE_UPDATE') await captureEdit(ctx, dispatch.d);
      else if (dispatch.t === 'MESSAGE_DELETE') await captureDelete(dispatch.d);
      else await captureBulkDelete(dispatch.d);
    },
  );
  return [{ stop: interactions }, { stop: messages }];
}
