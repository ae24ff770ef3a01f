import { bind, findArchived, logRoutes, notFound, type RouteBinding, sendAttachment } from '@guildhall/shared';
import type { LogsContext } from '../config';
import { accessAnswers } from '../privacy/accessAnswers';
import type { ChannelDirectory } from '../privacy/channelFacts';
import { hiddenChannels } from '../privacy/hiddenChannels';
import { archivedLinks } from './archivedLinks';
import { searchMessages } from './searchMessages';
import { toLoggedMessage } from './toLoggedMessage';

/**
 * GET /messages: only messages of channels the caller can view; archived attachments link to Guildhall's copies.
 * GET /messages/attachments/{attachment}: an archived file, 404 unless the caller can view its message's channel.
 */
export function messageRoutes(ctx: LogsContext, directory: ChannelDirectory): RouteBinding[] {
  const deps = { access: accessAnswers(ctx), directory, timeoutMs: ctx.config.PEER_TIMEOUT_MS };
  return [
    bind(logRoutes.searchMessages, async ({ params, query, identity }) => {
      const hidden = await hiddenChannels(deps, params.guild, identity.sub);
      const rows = await searchMessages(params.guild, { ...query, hidden });
      return { messages: (await archivedLinks(rows)).map(toLoggedMessage) };
    }),
    bind(logRoutes.getMessageAttachment, async ({ params, identity, req, res }) => {
      const row = await findArchived(params.guild, params.attachment);
      const hidden = await hiddenChannels(deps, params.guild, identity.sub);
      if (hidden === 'all' || hidden.includes(row.channel)) throw notFound(`Unknown attachment ${params.attachment}`);
      await sendAttachment(req, res, row);
      return '';
    }),
  ];
}
