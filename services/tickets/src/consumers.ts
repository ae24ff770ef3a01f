import type { ServiceContext, Stoppable } from '@guildhall/shared';
import type {
  APIInteraction,
  GatewayMessageCreateDispatchData,
  GatewayMessageDeleteBulkDispatchData,
  GatewayMessageDeleteDispatchData,
  GatewayMessageUpdateDispatchData,
} from 'discord-api-types/v10';
import { handleInteraction } from './interactions/handleInteraction';
import { captureBulkDelete, captureDelete, captureEdit, captureMessage } from './messages/captureMessage';

/** A platform gateway dispatch as the bridge publishes it. */
interface Dispatch<T> {
  t: string;
  s: number | null;
  op: number;
  d: T;
}

/**
 * The platform dispatches this service reacts to: INTERACTION_CREATE (panel buttons, questions modal, ticket
 * buttons) and MESSAGE_CREATE/UPDATE/DELETE/DELETE_BULK (the messages of ticket threads). Durable consumers, so
 * nothing is lost while the service is down; every handler is idempotent.
 */
export async function startConsumers(ctx: ServiceContext): Promise<Stoppable[]> {
  const interactions = await ctx.bus.consume<Dispatch<APIInteraction>>(
    { stream: 'PLATFORM', durable: 'tickets-interactions', filterSubjects: ['platform.dispatch.INTERACTION_CREATE'] },
    async (msg) => handleInteraction(ctx, msg.data.d),
  );
  const messages = await ctx.bus.consume<Dispatch<unknown>>(
    {
      stream: 'PLATFORM',
      durable: 'tickets-messages',
      filterSubjects: [
        'platform.dispatch.MESSAGE_CREATE',
        'platform.dispatch.MESSAGE_UPDATE',
        'platform.dispatch.MESSAGE_DELETE',
        'platform.dispatch.MESSAGE_DELETE_BULK',
      ],
    },
    async (msg) => {
      const { t, d } = msg.data;
      if (t === 'MESSAGE_CREATE') await captureMessage(d as GatewayMessageCreateDispatchData);
      else if (t === 'MESSAGE_UPDATE') await captureEdit(d as GatewayMessageUpdateDispatchData);
      else if (t === 'MESSAGE_DELETE') await captureDelete(d as GatewayMessageDeleteDispatchData);
      else if (t === 'MESSAGE_DELETE_BULK') await captureBulkDelete(d as GatewayMessageDeleteBulkDispatchData);
    },
  );
  return [{ stop: interactions }, { stop: messages }];
}
