import type { JournalEvent, MemberHistoryRequest } from '@guildhall/shared';
import { type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import type { z } from 'zod';
import type { ModerationConfig } from '../src/config';
import { definition } from '../src/service';

/** The moderation suites' harness (see `startServiceHarness`). */
export type Harness = ServiceHarness<ModerationConfig, 'moderation'>;

/**
 * Starts moderation with fast expiry polling and a short peer timeout, calling as the sample guild's moderator;
 * `extraEnv` overrides the service environment.
 */
export function startHarness(extraEnv: Record<string, string> = {}): Promise<Harness> {
  return startServiceHarness(definition, {
    env: { EXPIRY_POLL_MS: '100', PEER_TIMEOUT_MS: '500', ...extraEnv },
    caller: { as: 'moderator' },
  });
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
 * a message by the sample member ("pat") in the general channel.
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
