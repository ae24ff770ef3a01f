import type { GatewayDispatchPayload } from 'discord-api-types/v10';

/** The event name of a dispatch (`'GUILD_BAN_ADD'`, or the `GatewayDispatchEvents` member). */
export type DispatchName = `${GatewayDispatchPayload['t']}`;
/** The `d` of the dispatch named `E`, as discord-api-types describes it. */
export type DispatchData<E extends DispatchName> = Extract<GatewayDispatchPayload, { t: E }>['d'];
