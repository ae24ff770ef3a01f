import {
  badRequest,
  type FeaturesReply,
  type FeaturesRequest,
  type MemberHistoryReply,
  type MemberHistoryRequest,
  RPC,
  type ServiceContext,
  type Stoppable,
} from '@guildhall/shared';
import { eventsAboutUser } from '../journal/listJournal';
import { toJournalEvent } from '../journal/toJournalEvent';
import { deletedMessagesBy } from '../messages/searchMessages';
import { toLoggedMessage } from '../messages/toLoggedMessage';
import { loadSettings } from '../settings/getSettings';

const SNOWFLAKE = /^[0-9]{1,20}$/;

/**
 * `RPC.memberHistory` {guild, user, limit?} -> {events (user is target or actor), deleted (their deleted messages of
 * the last 7 days)}, newest first, at most `limit` (default 50, max 100) of each. 400 on bad ids.
 */
export async function memberHistory(req: MemberHistoryRequest): Promise<MemberHistoryReply> {
  if (!SNOWFLAKE.test(String(req?.guild)) || !SNOWFLAKE.test(String(req?.user))) {
    throw badRequest('guild and user must be digit-string ids');
  }
  const limit = Math.min(Math.max(Math.trunc(Number(req.limit ?? 50)) || 50, 1), 100);
  const [events, deleted] = await Promise.all([
    eventsAboutUser(req.guild, req.user, limit),
    deletedMessagesBy(req.guild, req.user, limit),
  ]);
  return { events: events.map(toJournalEvent), deleted: deleted.map(toLoggedMessage) };
}

/** `RPC.features('logs')` {guild} -> feature `logs`: on (all four destinations set), partial (some), off (none). */
export async function logsFeatures(req: FeaturesRequest): Promise<FeaturesReply> {
  if (!SNOWFLAKE.test(String(req?.guild))) throw badRequest('guild must be a digit-string id');
  const s = await loadSettings(req.guild);
  const set = [s.messagesChannel, s.membersChannel, s.moderationChannel, s.serverChannel].filter(Boolean).length;
  const state = set === 4 ? 'on' : set === 0 ? 'off' : 'partial';
  return { features: [{ feature: 'logs', state, note: `${set} of 4 log categories have a destination channel` }] };
}

/** Registers the logs service's request-reply responders. */
export function answerPeers(ctx: ServiceContext): Stoppable[] {
  const subs = [ctx.bus.reply(RPC.memberHistory, memberHistory), ctx.bus.reply(RPC.features('logs'), logsFeatures)];
  return subs.map((sub) => ({ stop: async () => sub.unsubscribe() }));
}
