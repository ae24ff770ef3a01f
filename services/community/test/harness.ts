import { type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import type { CommunityConfig } from '../src/config';
import { definition } from '../src/service';

/** The community suites' harness (see `startServiceHarness`). */
export type Harness = ServiceHarness<CommunityConfig, 'community'>;

/** Starts community calling as the sample guild's owner, named `Tester`; `env` overrides the service environment. */
export function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  return startServiceHarness(definition, { env, caller: { as: 'owner', name: 'Tester' } });
}
