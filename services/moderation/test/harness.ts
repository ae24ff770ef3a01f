import { type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
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
