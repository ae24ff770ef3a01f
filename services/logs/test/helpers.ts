import { createLogger, EventBus, RPC, type StructureReply } from '@guildhall/shared';
import { type SeedGuild, testNatsUrl } from '@guildhall/shared/testing';
import { ChannelType } from 'discord-api-types/v10';

/** A second bus on the service's namespace: publishes dispatches as the bridge does and answers community RPCs. */
export async function testBus(namespace: string): Promise<EventBus> {
  return EventBus.connect({
    url: testNatsUrl(),
    name: 'logs-test',
    namespace,
    logger: createLogger('logs-test', 'silent'),
  });
}

let sequence = 0;

/** Publishes a platform dispatch `{t, s, op: 0, d}` on `platform.dispatch.<t>`, with a fresh sequence number unless given. */
export async function dispatch(bus: EventBus, t: string, d: unknown, s?: number): Promise<number> {
  const seq = s ?? ++sequence;
  await bus.publish(`platform.dispatch.${t}`, { t, s: seq, op: 0, d }, `${t}-${seq}-${Math.random()}`);
  return seq;
}

/** Answers community's `RPC.structure` from the seed (channel kinds mapped like community does). */
export function answerStructure(bus: EventBus, seed: SeedGuild) {
  const kind = (type: ChannelType) =>
    type === ChannelType.GuildText
      ? 'text'
      : type === ChannelType.GuildCategory
        ? 'category'
        : type === ChannelType.GuildForum
          ? 'forum'
          : 'voice';
  return bus.reply<{ guild: string }, StructureReply>(RPC.structure, async () => ({
    roles: [],
    channels: (seed.channels ?? []).map((c, i) => ({
      id: c.id,
      name: c.name ?? c.id,
      kind: kind(c.type),
      parent: c.parent_id ?? null,
      position: i,
      tags: [],
    })),
    botTop: 3,
  }));
}
