import {
  type AccessReply,
  type AccessRequest,
  type Cap,
  type HierarchyReply,
  type HierarchyRequest,
  RPC,
  type StructureReply,
} from '@guildhall/shared';
import { accessFromFake, hierarchyFromFake, startServiceHarness, structureFromFake } from '@guildhall/testkit';
import { definition } from '../src/service';
import type { Harness } from './harness';
import { type PlatformMember, throughPlatform } from './throughPlatform';

/** Moderation with its peers answered from the fake platform, for the command suites (see `startCommandHarness`). */
export interface CommandHarness {
  h: Harness;
  /** The caps community answers per user (the moderator starts with cases.read, cases.write and cases.revoke). */
  caps: Map<string, Cap[]>;
  /** While true, RPC.access fails as when community is down. */
  access: { down: boolean };
  /** Commands and button presses through the platform. */
  platform: PlatformMember;
  close(): Promise<void>;
}

/**
 * Starts moderation (service harness as the moderator, `env` added) with RPC.structure, RPC.access (the member from
 * the fake, the caps from `caps`) and RPC.hierarchy answered from the fake platform, and members acting through the
 * platform (`throughPlatform`).
 */
export async function startCommandHarness(env: Record<string, string>): Promise<CommandHarness> {
  const h = await startServiceHarness(definition, { env, caller: { as: 'moderator' } });
  const caps = new Map<string, Cap[]>();
  const access = { down: false };
  h.peer.reply<{ guild: string }, StructureReply>(RPC.structure, async ({ guild }) => structureFromFake(h.fake, guild));
  h.peer.reply<AccessRequest, AccessReply>(RPC.access, async ({ guild, user }) => {
    if (access.down) throw new Error('community is down');
    return { ...accessFromFake(h.fake, guild, user), caps: caps.get(user) ?? [] };
  });
  h.peer.reply<HierarchyRequest, HierarchyReply>(RPC.hierarchy, async (req) => hierarchyFromFake(h.fake, req));
  caps.set(h.seed.ids.moderator, ['cases.read', 'cases.write', 'cases.revoke']);
  const platform = await throughPlatform(h);
  return {
    h,
    caps,
    access,
    platform,
    async close() {
      platform.stop();
      await h.close();
    },
  };
}
