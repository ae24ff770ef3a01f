import { type AccessReply, askRpc, editReply, HttpProblem, replyEphemeral, rpcSpecs } from '@guildhall/shared';
import {
  type APIApplicationCommandInteractionDataSubcommandOption,
  type APIChatInputApplicationCommandGuildInteraction,
  ApplicationCommandOptionType,
} from 'discord-api-types/v10';
import type { TicketsContext } from '../config';
import { displayName } from '../platform/users';
import { TicketModel, type TicketRow } from '../tickets/model';
import { type TicketAction, transitionTicket } from '../tickets/transitionTicket';
import { acknowledge } from './acknowledge';

/** The cap `/ticket` needs (as `COMMAND_CAPS` declares and the API's ticket transition requires). */
const CAP = 'tickets.manage';

const DONE: Record<TicketAction, (number: number) => string> = {
  claim: (n) => `You claimed ticket #${n}.`,
  close: (n) => `Ticket #${n} closed.`,
  reopen: (n) => `Ticket #${n} reopened.`,
};

/** The subcommand of a `/ticket` interaction and its `reason` option (close only), or null when malformed. */
function subcommandOf(
  interaction: APIChatInputApplicationCommandGuildInteraction,
): { action: TicketAction; reason: string | null } | null {
  const sub = interaction.data.options?.[0] as APIApplicationCommandInteractionDataSubcommandOption | undefined;
  if (sub?.type !== ApplicationCommandOptionType.Subcommand) return null;
  if (sub.name !== 'claim' && sub.name !== 'close' && sub.name !== 'reopen') return null;
  const reason = sub.options?.find((o) => o.name === 'reason');
  return { action: sub.name, reason: reason && typeof reason.value === 'string' ? reason.value : null };
}

/**
 * `/ticket claim|close|reopen` run in a ticket's thread: the same use case as the API's transition route
 * (`transitionTicket`: a claim also needs the ticket's staff rule, 403 `ticket_staff`; illegal transitions refused),
 * keyed by the interaction id (a redelivered dispatch finishes the same change). Outside a ticket thread it answers
 * "use this in a ticket thread". The caller needs the `tickets.manage` cap, read from community's `RPC.access` (never
 * allowed when community does not answer within `PEER_TIMEOUT_MS`: the answer says to try again). Every answer is
 * ephemeral: an immediate reply outside a ticket, else deferred (type 5) then the original edited with the result or
 * the refusal. `resumed`: a redelivery of an interaction whose first run died half-way.
 */
export async function onTicketCommand(
  ctx: TicketsContext,
  interaction: APIChatInputApplicationCommandGuildInteraction,
  resumed: boolean,
): Promise<void> {
  const command = subcommandOf(interaction);
  if (!command) return;
  const ticket = await TicketModel.findOne({
    guild: interaction.guild_id,
    thread: interaction.channel?.id ?? interaction.channel_id ?? '',
  }).lean<TicketRow>();
  if (!ticket) return replyEphemeral(ctx.platform, interaction, 'Use `/ticket` in a ticket thread.');
  await acknowledge(ctx, interaction, resumed);
  const user = interaction.member.user;
  let access: AccessReply;
  try {
    access = await askRpc(ctx.bus, rpcSpecs.access, { guild: ticket.guild, user: user.id }, ctx.config.PEER_TIMEOUT_MS);
  } catch {
    return editReply(ctx.platform, interaction, 'Your access could not be checked right now; try again shortly.');
  }
  if (!access.member || !access.caps.includes(CAP)) {
    return editReply(ctx.platform, interaction, `You need the \`${CAP}\` cap to ${command.action} tickets.`);
  }
  const actor = { id: user.id, name: displayName(user, interaction.member) };
  try {
    const after = await transitionTicket(
      ctx,
      ticket.guild,
      ticket.number,
      command.action,
      actor,
      command.reason,
      interaction.id,
    );
    await editReply(ctx.platform, interaction, DONE[command.action](after.number));
  } catch (err) {
    if (!(err instanceof HttpProblem)) throw err;
    await editReply(ctx.platform, interaction, `Could not ${command.action} ticket #${ticket.number}: ${err.detail}`);
  }
}
