import { bind, exportRoutes, type RouteBinding, communityRoutes as r } from '@guildhall/shared';
import type { CommunityContext } from './config';
import { exportGuild } from './export/exportGuild';
import { listForums } from './forums/listForums';
import { setForumStatuses } from './forums/setForumStatuses';
import { jobPath } from './jobs/enqueueJob';
import { getJob } from './jobs/getJob';
import { searchMembers } from './members/searchMembers';
import { addPackItems } from './packs/addPackItems';
import { createPack } from './packs/createPack';
import { deleteItems } from './packs/deleteItems';
import { listPacks } from './packs/listPacks';
import { orderPackItems } from './packs/orderPackItems';
import { removePackItems } from './packs/removePackItems';
import { setPackGuest } from './packs/setPackGuest';
import { setPackPrivacy } from './packs/setPackPrivacy';
import { subscribeToPack } from './packs/subscribeToPack';
import { unsubscribeFromPack } from './packs/unsubscribeFromPack';
import { listPosts } from './posts/listPosts';
import { setPostStatus } from './posts/setPostStatus';
import { applyTemplate } from './setup/applyTemplate';
import { getSetup } from './setup/getSetup';
import { listStaffRoles } from './staff/listStaffRoles';
import { setStaffCaps } from './staff/setStaffCaps';
import { loadStructure } from './structure/loadStructure';
import { toStructure } from './structure/toStructure';

/** The community service's route table: each contract route bound to its one use case. */
export function routes(ctx: CommunityContext): RouteBinding[] {
  return [
    bind(r.getSetup, ({ params }) => getSetup(ctx, params.guild)),
    bind(r.applySetup, ({ params, identity }) => applyTemplate(ctx, params.guild, params.template, identity)),
    bind(r.getStructure, async ({ params }) => toStructure(await loadStructure(ctx, params.guild))),
    bind(r.searchMembers, async ({ params, query }) => ({
      members: await searchMembers(ctx, params.guild, query.query, query.limit),
    })),
    bind(r.putStaffRole, async ({ params, body, identity }) => {
      await setStaffCaps(ctx, params.guild, params.role, body.caps, identity);
      return { roles: await listStaffRoles(ctx, params.guild) };
    }),
    bind(r.getStaffRoles, async ({ params }) => ({ roles: await listStaffRoles(ctx, params.guild) })),
    bind(r.getForums, async ({ params }) => ({ forums: await listForums(ctx, params.guild) })),
    bind(r.getForumPosts, async ({ params, query }) => ({
      posts: await listPosts(ctx, params.guild, params.forum, query),
    })),
    bind(r.putForum, ({ params, body, identity }) =>
      setForumStatuses(ctx, params.guild, params.forum, body.statuses, identity),
    ),
    bind(r.putPostStatus, ({ params, body, identity }) =>
      setPostStatus(ctx, params.guild, params.thread, body.tag, identity),
    ),
    bind(r.getPacks, ({ params }) => listPacks(ctx, params.guild)),
    bind(r.createPack, ({ params, body, identity }) => createPack(ctx, params.guild, body.name, identity)),
    bind(r.putPackSubscription, async ({ params, body, identity, res }) => {
      const job = await subscribeToPack(ctx, params.guild, params.pack, body.contributes, identity);
      res.location(jobPath(params.guild, job));
      return undefined;
    }),
    bind(r.deletePackSubscription, async ({ params, query, identity, res }) => {
      const { result, job } = await unsubscribeFromPack(
        ctx,
        params.guild,
        params.pack,
        query.preview ?? false,
        identity,
      );
      if (job) res.location(jobPath(params.guild, job));
      return result;
    }),
    bind(r.putPackItems, async ({ params, body }) => {
      await orderPackItems(params.guild, params.pack, body.ids);
      return undefined;
    }),
    bind(r.addPackItems, async ({ params, body, identity, res }) => {
      const job = await addPackItems(ctx, params.guild, params.pack, body.ids, identity);
      res.location(jobPath(params.guild, job));
      return undefined;
    }),
    bind(r.removePackItems, async ({ params, query, body, identity, res }) => {
      const { result, job } = await removePackItems(
        ctx,
        params.guild,
        params.pack,
        body.ids,
        query.preview ?? false,
        identity,
      );
      if (job) res.location(jobPath(params.guild, job));
      return result;
    }),
    bind(r.patchPack, async ({ params, body, identity }) => {
      await setPackPrivacy(ctx, params.guild, params.pack, body.private, identity);
      return undefined;
    }),
    bind(r.putPackGuest, ({ params, body, identity }) =>
      setPackGuest(
        ctx,
        params.guild,
        params.pack,
        params.other,
        { invited: true, contributor: body.contributor },
        identity,
      ),
    ),
    bind(r.deletePackGuest, ({ params, identity }) =>
      setPackGuest(ctx, params.guild, params.pack, params.other, { invited: false, contributor: false }, identity),
    ),
    bind(r.getPackJob, ({ params }) => getJob(params.guild, params.job)),
    bind(exportRoutes.exportGuild, ({ params, identity, res }) => exportGuild(ctx, params.guild, identity, res)),
    bind(r.deleteItems, ({ params, query, body, identity }) =>
      deleteItems(ctx, params.guild, body.ids, query.preview ?? false, identity),
    ),
  ];
}
