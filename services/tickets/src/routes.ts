import {
  badRequest,
  bind,
  bodyFingerprint,
  findArchived,
  type Identity,
  platformProblem,
  type RouteBinding,
  readIdempotencyKey,
  sendAttachment,
  ticketRoutes,
} from '@guildhall/shared';
import type { TicketsContext } from './config';
import { archivedLinks } from './messages/archivedLinks';
import { toTicketMessage } from './messages/toTicketMessage';
import { postPanel } from './panel/postPanel';
import { displayName } from './platform/users';
import type { Actor } from './settings/actor';
import { blacklistMember, unblacklistMember } from './settings/blacklist';
import { createType, deleteType, updateType } from './settings/saveType';
import { forgetSettings, settingsView } from './settings/settingsCache';
import { toType } from './settings/toSettings';
import { updateSettings } from './settings/updateSettings';
import { getTicket } from './tickets/getTicket';
import { listTickets } from './tickets/listTickets';
import { openTicket } from './tickets/openTicket';
import { toTicket } from './tickets/toTicket';
import { transitionOnce } from './tickets/transitionOnce';
import { transitionTicket } from './tickets/transitionTicket';
import { getTranscriptSettings, putTranscriptSettings } from './transcripts/settings';
import { ticketTranscript } from './transcripts/ticketTranscript';

const actorOf = (identity: Identity): Actor => ({
  id: identity.sub,
  name: identity.name || identity.username || identity.sub,
});

/**
 * The opener of a dashboard-opened ticket: the caller, or the member `opener` given by staff (looked up on the
 * platform for the display name; 400 when not a member of the guild).
 */
async function resolveOpener(ctx: TicketsContext, guild: string, identity: Identity, opener?: string): Promise<Actor> {
  if (!opener || opener === identity.sub) return actorOf(identity);
  try {
    const member = await ctx.platform.guilds.getMember(guild, opener);
    return { id: opener, name: displayName(member.user, member) };
  } catch (err) {
    const message = 'is not a member of this guild';
    if ((err as { status?: number }).status === 404) {
      throw badRequest(`Invalid body.opener: ${message}`, [{ field: 'body.opener', message }]);
    }
    throw platformProblem(err, 'look up the opener');
  }
}

/**
 * Runs a write of `guild`'s settings or types and then drops the cached settings view here and on every other
 * replica (also when the write failed part-way), so that the answer and every later read see the write.
 */
async function writingSettings<T>(ctx: TicketsContext, guild: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    forgetSettings(ctx.bus, guild);
  }
}

/** The HTTP table of the tickets service: each route validates (shared contract), calls one use case, shapes the reply. */
export function ticketsRoutes(ctx: TicketsContext): RouteBinding[] {
  return [
    bind(ticketRoutes.getTicketSettings, ({ params }) => settingsView(ctx, params.guild)),
    bind(ticketRoutes.updateTicketSettings, async ({ params, body, identity }) => {
      await writingSettings(ctx, params.guild, () => updateSettings(ctx, params.guild, body, actorOf(identity)));
      return settingsView(ctx, params.guild);
    }),
    bind(ticketRoutes.blacklistTicketMember, async ({ params, identity }) => {
      await writingSettings(ctx, params.guild, () =>
        blacklistMember(ctx, params.guild, params.member, actorOf(identity)),
      );
      return settingsView(ctx, params.guild);
    }),
    bind(ticketRoutes.unblacklistTicketMember, async ({ params, identity }) => {
      await writingSettings(ctx, params.guild, () =>
        unblacklistMember(ctx, params.guild, params.member, actorOf(identity)),
      );
      return settingsView(ctx, params.guild);
    }),
    bind(ticketRoutes.postTicketPanel, async ({ params, body, identity }) => {
      await writingSettings(ctx, params.guild, () => postPanel(ctx, params.guild, body.channel, actorOf(identity)));
      return settingsView(ctx, params.guild);
    }),
    bind(ticketRoutes.createTicketType, async ({ params, body, identity }) =>
      toType(await writingSettings(ctx, params.guild, () => createType(ctx, params.guild, body, actorOf(identity)))),
    ),
    bind(ticketRoutes.updateTicketType, async ({ params, body, identity }) =>
      toType(
        await writingSettings(ctx, params.guild, () =>
          updateType(ctx, params.guild, params.type, body, actorOf(identity)),
        ),
      ),
    ),
    bind(ticketRoutes.deleteTicketType, async ({ params, identity }) => {
      await writingSettings(ctx, params.guild, () => deleteType(ctx, params.guild, params.type, actorOf(identity)));
      return undefined;
    }),
    bind(ticketRoutes.openTicket, async ({ params, body, identity, req }) => {
      const idempotencyKey = readIdempotencyKey(req.headers['idempotency-key']);
      const opener = await resolveOpener(ctx, params.guild, identity, body.opener);
      const key = idempotencyKey && `http:${params.guild}:${identity.sub}:${idempotencyKey}`;
      const fingerprint = idempotencyKey && bodyFingerprint(body);
      return toTicket(await openTicket(ctx, params.guild, body.type, opener, body.answers, key, fingerprint));
    }),
    bind(ticketRoutes.getTranscriptSettings, ({ params }) => getTranscriptSettings(params.guild)),
    bind(ticketRoutes.putTranscriptSettings, ({ params, body }) => putTranscriptSettings(ctx, params.guild, body)),
    bind(ticketRoutes.getTranscript, async ({ params, res }) => {
      const html = await ticketTranscript(params.guild, params.number);
      res.status(200).type('html').send(html);
      return html;
    }),
    bind(ticketRoutes.listTickets, ({ params, query }) => listTickets(params.guild, query)),
    bind(ticketRoutes.getTicket, async ({ params, query, req, res }) => {
      const { ticket, messages, more } = await getTicket(params.guild, params.number, query);
      if (more) {
        const next = new URLSearchParams({ before: messages[0]!._id, limit: String(query.limit) });
        res.setHeader('Link', `<${req.path}?${next}>; rel="next"`);
      }
      return { ticket: toTicket(ticket), messages: (await archivedLinks(messages)).map(toTicketMessage) };
    }),
    bind(ticketRoutes.getTicketAttachment, async ({ params, req, res }) => {
      await sendAttachment(req, res, await findArchived(params.guild, params.attachment));
      return '';
    }),
    bind(ticketRoutes.ticketAction, async ({ params, body, identity, req }) => {
      const idempotencyKey = readIdempotencyKey(req.headers['idempotency-key']);
      const request = { ...params, actor: actorOf(identity), reason: body.reason ?? null };
      if (idempotencyKey) return transitionOnce(ctx, request, idempotencyKey);
      const { guild, number, action, actor, reason } = request;
      return toTicket(await transitionTicket(ctx, guild, number, action, actor, reason));
    }),
  ];
}
