import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { BRIDGE_INTENTS } from '@guildhall/shared';
import {
  type GatewayDispatchPayload,
  GatewayOpcodes,
  InteractionResponseType,
  InteractionType,
  Routes,
  TextInputStyle,
} from 'discord-api-types/v10';
import { receives } from '../gateway/intents';
import { startFakePlatform } from '../server';
import { DAY_START, IDS, TICKET_TYPE_ID } from './cast';
import { DayClock, type DayFacts, guildDayDriver, TICKET_FORM } from './drive';

/** Fixed inputs of the recording, so re-recording gives the same bytes (no port, random token or key leaks). */
const RECORDING = { secretSeed: 'guild-day', botUserId: IDS.bot, cdnOrigin: 'https://cdn.discordapp.com' };

/** A recorded day: the dispatches the bot received, in order, and the day's facts. */
export interface RecordedDay {
  payloads: GatewayDispatchPayload[];
  facts: DayFacts;
}

/** The ticket form the recording bot shows for the panel button (the tickets service's two questions). */
function ticketForm() {
  return {
    type: InteractionResponseType.Modal,
    data: {
      custom_id: TICKET_FORM.customId,
      title: 'Open a ticket',
      components: TICKET_FORM.inputs.map((custom_id, i) => ({
        type: 1,
        components: [{ type: 4, custom_id, label: i ? 'Details' : 'Subject', style: i ? TextInputStyle.Paragraph : 1 }],
      })),
    },
  };
}

/**
 * Records the fixture guild's day as a bot receives it: starts a simulator on a clock at `dayStart` (with fixed
 * secrets, the fixture's bot id and a fixed CDN origin), connects a bot with `@discordjs/ws` (the bridge's intents),
 * which asks for the members at GUILD_CREATE (REQUEST_GUILD_MEMBERS) and shows the ticket form when the panel button
 * is used, drives the day (`guildDayDriver`; in two parts when `firstPart` actions are given), and resolves every
 * dispatch the bot received after READY once the last one the day emitted has arrived (rejects after `timeoutMs`).
 * The same `dayStart` (default 2025-03-14) gives the same payloads, byte for byte.
 */
export async function recordGuildDay(
  options: { dayStart?: Date; timeoutMs?: number; firstPart?: number } = {},
): Promise<RecordedDay> {
  const { dayStart = DAY_START, timeoutMs = 60_000, firstPart } = options;
  const clock = new DayClock(dayStart);
  const fake = await startFakePlatform({ ...RECORDING, clock: { now: () => clock.now() } });
  const rest = new REST({ api: fake.url, version: '10', retries: 0 }).setToken('recording-bot');
  const manager = new WebSocketManager({ token: 'recording-bot', intents: BRIDGE_INTENTS, rest });
  const payloads: GatewayDispatchPayload[] = [];
  const pending: Array<Promise<unknown>> = [];
  let emitted = 0;
  const stopCounting = fake.onDispatch((guildId, t) => {
    if (guildId === IDS.guild && receives(BRIDGE_INTENTS, t)) emitted += 1;
  });
  manager.on(WebSocketShardEvents.Dispatch, (payload, shardId) => {
    if (payload.t === 'READY') return;
    payloads.push({ t: payload.t, s: payload.s, op: payload.op, d: payload.d } as GatewayDispatchPayload);
    if (payload.t === 'GUILD_CREATE')
      pending.push(
        Promise.resolve(
          manager.send(shardId, {
            op: GatewayOpcodes.RequestGuildMembers,
            d: { guild_id: payload.d.id, query: '', limit: 0, nonce: 'guild-day' },
          }),
        ),
      );
    if (
      payload.t === 'INTERACTION_CREATE' &&
      payload.d.type === InteractionType.MessageComponent &&
      payload.d.data.custom_id === `ticket:open:${TICKET_TYPE_ID}`
    )
      pending.push(
        rest.post(Routes.interactionCallback(payload.d.id, payload.d.token), { body: ticketForm(), auth: false }),
      );
  });
  try {
    await manager.connect();
    const driver = guildDayDriver(fake, dayStart, clock);
    if (firstPart !== undefined) await driver.play(firstPart);
    await driver.play();
    const deadline = Date.now() + timeoutMs;
    const received = () => payloads.filter((p) => p.t !== 'GUILD_CREATE' && p.t !== 'GUILD_MEMBERS_CHUNK').length;
    while (received() < emitted) {
      if (Date.now() > deadline) throw new Error(`received ${received()} of the day's ${emitted} dispatches`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(pending);
    return { payloads, facts: driver.facts };
  } finally {
    stopCounting();
    await manager.destroy();
    await fake.close();
  }
}

/** A recorded day as NDJSON: one `{t, s, op, d}` payload per line, each line ending in `\n`. */
export function dayNdjson(payloads: GatewayDispatchPayload[]): string {
  return payloads.map((p) => `${JSON.stringify(p)}\n`).join('');
}
