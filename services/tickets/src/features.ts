import { answerRpc, type FeaturesReply, rpcSpecs, type Stoppable } from '@guildhall/shared';
import type { TicketsContext } from './config';
import { loadSettings } from './settings/loadSettings';
import { TicketTypeModel } from './settings/model';

/**
 * The `tickets` setup feature of a guild: `on` when the panel is posted and there is at least one type, `partial`
 * when only one of the two holds, `off` otherwise; `note` says what is missing.
 */
export async function ticketsFeature(guild: string): Promise<FeaturesReply> {
  const [settings, types] = await Promise.all([loadSettings(guild), TicketTypeModel.countDocuments({ guild })]);
  const panel = !!settings.panelMessage;
  const missing = [...(panel ? [] : ['the panel is not posted']), ...(types ? [] : ['no ticket type exists'])];
  const state = missing.length === 0 ? 'on' : missing.length === 1 ? 'partial' : 'off';
  const note =
    state === 'on' ? `Panel posted in <#${settings.panelChannel}> with ${types} type(s)` : `${missing.join('; ')}`;
  return { features: [{ feature: 'tickets', state, note }] };
}

/** Answers `RPC.features('tickets')` ({guild}, checked by `answerRpc`: 400 when malformed) with the `tickets` feature entry. */
export function startFeaturesResponder(ctx: TicketsContext): Stoppable {
  const sub = answerRpc(ctx.bus, rpcSpecs.features('tickets'), ({ guild }) => ticketsFeature(guild), ctx.logger);
  return { stop: async () => sub.unsubscribe() };
}
