import { bodyFingerprint, conflict, isDuplicateKey, type Ticket } from '@guildhall/shared';
import type { z } from 'zod';
import type { TicketsContext } from '../config';
import type { Actor } from '../settings/actor';
import { TransitionKeyModel, type TransitionKeyRow } from './model';
import { toTicket } from './toTicket';
import { type TicketAction, transitionTicket } from './transitionTicket';

/** One claim / close / reopen request: ticket `number` of `guild`, by `actor`, with the close `reason` if any. */
export interface TransitionRequest {
  guild: string;
  number: number;
  action: TicketAction;
  actor: Actor;
  reason: string | null;
}

/**
 * `transitionTicket` for an HTTP request carrying an `Idempotency-Key` (`key`, already checked), kept per guild and
 * caller for 24 hours in `ticket_transition_keys` (MongoDB, so every replica sees it). The first request with the key
 * runs the transition keyed by `http:<guild>:<actor>:<key>` and stores its answer. A retry with the same ticket,
 * action and body answers that stored answer without acting again, also after the ticket changed since; a retry
 * before the answer was stored (the first request died half-way, or is still running) runs the same keyed
 * transition again, which finishes it (notice, platform change and event once each) instead of answering 409.
 * 409 when the key was used with another ticket, action or body, or when its first request is still storing the
 * key. Other errors as `transitionTicket` (a failed first request stores no answer: a retry runs it again).
 */
export async function transitionOnce(
  ctx: TicketsContext,
  request: TransitionRequest,
  key: string,
): Promise<z.infer<typeof Ticket>> {
  const { guild, number, action, actor, reason } = request;
  const id = `http:${guild}:${actor.id}:${key}`;
  const fingerprint = bodyFingerprint({ number, action, reason });
  const taken = await TransitionKeyModel.findById(id).lean<TransitionKeyRow>();
  if (taken && taken.fingerprint !== fingerprint)
    throw conflict('This Idempotency-Key was already used with a different ticket, action or body');
  if (taken?.answer) return taken.answer;
  if (!taken) {
    await TransitionKeyModel.create({ _id: id, fingerprint, at: new Date(), answer: null }).catch((err) => {
      throw isDuplicateKey(err) ? conflict('The first request with this Idempotency-Key is still running') : err;
    });
  }
  const answer = toTicket(await transitionTicket(ctx, guild, number, action, actor, reason, id));
  await TransitionKeyModel.updateOne({ _id: id }, { $set: { answer } });
  return answer;
}
