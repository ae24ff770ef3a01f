import { deferEphemeral, platformFailure } from '@guildhall/shared';
import type { APIGuildInteraction } from 'discord-api-types/v10';
import type { TicketsContext } from '../config';

/**
 * Acknowledges an interaction (deferred, ephemeral: callback type 5). A resumed run (the dispatch redelivered after
 * its process died half-way) goes on when the platform refuses it: the first run acknowledged it, or it is too late
 * for one.
 */
export async function acknowledge(
  ctx: TicketsContext,
  interaction: APIGuildInteraction,
  resumed: boolean,
): Promise<void> {
  await deferEphemeral(ctx.platform, interaction).catch((err) => {
    if (!resumed || platformFailure(err).status === 0) throw err;
  });
}
