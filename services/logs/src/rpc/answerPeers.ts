import {
  ANTINUKE_KINDS,
  answerRpc,
  type EncodedJson,
  type FeaturesReply,
  type FeaturesRequest,
  type MemberHistoryReply,
  type MemberHistoryRequest,
  rpcSpecs,
  type Stoppable,
} from '@guildhall/shared';
import { loadAntinukeSettings } from '../antinuke/settings';
import type { LogsContext } from '../config';
import { withArchivedEventLinks } from '../journal/archivedLinks';
import { eventsAboutUser } from '../journal/listJournal';
import { toJournalEvent } from '../journal/toJournalEvent';
import { archivedLinks } from '../messages/archivedLinks';
import { deletedMessagesBy } from '../messages/searchMessages';
import { toLoggedMessage } from '../messages/toLoggedMessage';
import { accessAnswers } from '../privacy/accessAnswers';
import type { ChannelDirectory } from '../privacy/channelFacts';
import { type hiddenChannels, hiddenOrAll } from '../privacy/hiddenChannels';
import { visibleChannels } from '../privacy/visibleChannels';
import { loadSettings } from '../settings/getSettings';
import { fitAnswer } from './fitAnswer';

/**
 * `RPC.memberHistory` {guild, user, limit?, viewer?} -> {events (user is target or actor), deleted (their deleted
 * messages of the last 7 days)}, newest first, at most `limit` (default 50, max 100) of each. With `viewer`, messages,
 * message events and channel events (names) of channels the viewer cannot view are left out (`hiddenOrAll`: all
 * of them when community does not answer in time). Files the archive stored link to Guildhall's copies, in the messages and in the
 * message events. The answer is encoded here, once, and cut to `ANSWER_BYTES` of JSON (newest kept, see `fitAnswer`)
 * so the bus can carry it. The request was checked against `MemberHistoryRequest` by `answerRpc`.
 */
export async function memberHistory(
  deps: Parameters<typeof hiddenChannels>[0],
  req: MemberHistoryRequest,
): Promise<EncodedJson<MemberHistoryReply>> {
  const limit = req.limit ?? 50;
  // The asker (moderation) waits `PEER_TIMEOUT_MS` for this answer, so community gets half of it.
  const hidden = req.viewer
    ? await hiddenOrAll({ ...deps, timeoutMs: Math.max(1, Math.floor(deps.timeoutMs / 2)) }, req.guild, req.viewer)
    : [];
  const [events, deleted] = await Promise.all([
    eventsAboutUser(req.guild, req.user, limit, hidden),
    deletedMessagesBy(req.guild, req.user, limit, hidden),
  ]);
  const [linkedEvents, linkedDeleted] = await Promise.all([withArchivedEventLinks(events), archivedLinks(deleted)]);
  return fitAnswer({ events: linkedEvents.map(toJournalEvent), deleted: linkedDeleted.map(toLoggedMessage) });
}

/**
 * `RPC.features('logs')` {guild} -> feature `logs`: on (all four destinations set), partial (some), off (none); and
 * feature `antinuke`: on when enabled with every kind watched, partial when enabled with some, off otherwise.
 */
export async function logsFeatures(req: FeaturesRequest): Promise<FeaturesReply> {
  const [s, antinuke] = await Promise.all([loadSettings(req.guild), loadAntinukeSettings(req.guild)]);
  const set = [s.messagesChannel, s.membersChannel, s.moderationChannel, s.serverChannel].filter(Boolean).length;
  const state = set === 4 ? 'on' : set === 0 ? 'off' : 'partial';
  const watched = ANTINUKE_KINDS.filter((k) => antinuke.limits[k]).length;
  const guarded = !antinuke.enabled || watched === 0 ? 'off' : watched === ANTINUKE_KINDS.length ? 'on' : 'partial';
  return {
    features: [
      { feature: 'logs', state, note: `${set} of 4 log categories have a destination channel` },
      {
        feature: 'antinuke',
        state: guarded,
        note: antinuke.enabled
          ? `Anti-nuke watches ${watched} of ${ANTINUKE_KINDS.length} kinds of action`
          : 'Anti-nuke is off',
      },
    ],
  };
}

/**
 * Registers the logs service's request-reply responders: `RPC.memberHistory`, `RPC.visibleChannels` (community is
 * given half of the asker's `PEER_TIMEOUT_MS`, as for the member history) and `RPC.features('logs')`, each request
 * checked against its schema (`answerRpc`: a malformed one is a 400, never acted on).
 */
export function answerPeers(ctx: LogsContext, directory: ChannelDirectory): Stoppable[] {
  const deps = { access: accessAnswers(ctx), directory, timeoutMs: ctx.config.PEER_TIMEOUT_MS };
  const subs = [
    answerRpc(ctx.bus, rpcSpecs.memberHistory, (req) => memberHistory(deps, req), ctx.logger),
    answerRpc(
      ctx.bus,
      rpcSpecs.visibleChannels,
      async (req) => ({
        visible: await visibleChannels({ ...deps, timeoutMs: Math.max(1, Math.floor(deps.timeoutMs / 2)) }, req),
      }),
      ctx.logger,
    ),
    answerRpc(ctx.bus, rpcSpecs.features('logs'), logsFeatures, ctx.logger),
  ];
  return subs.map((sub) => ({ stop: async () => sub.unsubscribe() }));
}
