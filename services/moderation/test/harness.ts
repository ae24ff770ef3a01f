import type { JournalEvent, MemberHistoryRequest, Outbox } from '@guildhall/shared';
import { type Crash, dyingProcess, type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import type { z } from 'zod';
import type { ModerationConfig, ModerationContext } from '../src/config';
import { definition } from '../src/service';

/** The moderation suites' harness (see `startServiceHarness`). */
export type Harness = ServiceHarness<ModerationConfig, 'moderation'>;

/**
 * Starts moderation with fast expiry polling and a short peer timeout, calling as the sample guild's moderator;
 * community's role hierarchy (`RPC.hierarchy`) is answered from the fake platform's guild state. `extraEnv` overrides
 * the service environment.
 */
export function startHarness(extraEnv: Record<string, string> = {}): Promise<Harness> {
  return startServiceHarness(definition, {
    env: { EXPIRY_POLL_MS: '100', PEER_TIMEOUT_MS: '500', ...extraEnv },
    caller: { as: 'moderator' },
    structure: true,
  });
}

/**
 * The service's platform and outbox as in a process dying at `crash` (null: never; see `dyingProcess`), for crash
 * redelivery tests: its platform calls (`channels`, `guilds`, `interactions`) and emits are the counted steps, and once
 * it died the record's final write (`model.findOneAndUpdate`) throws "process died" too. Undo the spy with
 * `jest.restoreAllMocks()`.
 */
export function dyingModeration(
  h: Harness,
  crash: Crash | null,
  model: { findOneAndUpdate: (...args: never[]) => unknown },
) {
  const live = h.service.ctx as ModerationContext;
  const process = dyingProcess(crash);
  const outbox = {
    bus: live.outbox.bus,
    emit: (...args: unknown[]) => process.step(() => (live.outbox.emit as Function).apply(live.outbox, args)),
  } as unknown as Outbox<'moderation'>;
  const target = model as unknown as { findOneAndUpdate: (...args: unknown[]) => unknown };
  const write = target.findOneAndUpdate.bind(target);
  jest.spyOn(target, 'findOneAndUpdate').mockImplementation((...args: unknown[]) => {
    if (process.dead()) throw new Error('process died');
    return write(...args);
  });
  return {
    platform: process.wrap(live.platform, ['channels', 'guilds', 'interactions']),
    outbox,
    calls: process.calls,
    dead: process.dead,
  };
}

/**
 * A `member_timeout` journal event about `req.user` by the sample moderator, as the logs peer answers it in the
 * member record suites; `data` is added to its `data`.
 */
export function timeoutEvent(
  h: Harness,
  req: MemberHistoryRequest,
  data: Record<string, unknown> = {},
): z.infer<typeof JournalEvent> {
  return {
    id: '1300000000000000001',
    guild: req.guild,
    kind: 'member_timeout',
    actor: h.seed.ids.moderator,
    actorName: 'mo',
    viaService: true,
    target: req.user,
    targetName: 'pat',
    channel: null,
    data: { at: '2025-01-01T00:00:00.000Z', ...data },
    undoneBy: null,
    undoneAt: null,
    undoneAs: null,
  };
}

/**
 * An INTERACTION_CREATE payload (`d`): `reporter` (shown as "Sam S") runs the Report message command on `message`,
 * a message by the sample member ("pat") in the general channel; it is answered with the report modal (see
 * `reportSubmission`).
 */
export function reportInteraction(h: Harness, interaction: string, reporter: string, message: string) {
  return {
    id: interaction,
    application_id: '1000000000000000009',
    type: 2,
    token: `token-${interaction}`,
    version: 1,
    guild_id: h.seed.id,
    channel_id: h.seed.ids.general,
    channel: { id: h.seed.ids.general, type: 0 },
    member: { user: { id: reporter, username: 'sam', global_name: 'Sam S' }, nick: null, roles: [] },
    data: {
      id: '1000000000000000010',
      name: 'Report message',
      type: 3,
      target_id: message,
      resolved: {
        messages: {
          [message]: {
            id: message,
            channel_id: h.seed.ids.general,
            content: 'buy cheap coins',
            author: { id: h.seed.ids.member, username: 'pat', global_name: null },
          },
        },
      },
    },
  };
}

/**
 * The INTERACTION_CREATE payload (`d`) of `reporter` submitting the report modal (type 5, custom id
 * `mod:report:<general>:<message>`) with `reason`, as the platform sends it after "Report message" answered with it.
 */
export function reportSubmission(h: Harness, interaction: string, reporter: string, message: string, reason: string) {
  return {
    id: interaction,
    application_id: '1000000000000000009',
    type: 5,
    token: `token-${interaction}`,
    version: 1,
    guild_id: h.seed.id,
    channel_id: h.seed.ids.general,
    channel: { id: h.seed.ids.general, type: 0 },
    member: { user: { id: reporter, username: 'sam', global_name: 'Sam S' }, nick: null, roles: [] },
    data: {
      custom_id: `mod:report:${h.seed.ids.general}:${message}`,
      components: [{ type: 1, components: [{ type: 4, custom_id: 'reason', value: reason }] }],
    },
  };
}
