import {
  COMMAND,
  editReply,
  HttpProblem,
  isDuplicateKey,
  platformFailure,
  replyEphemeral,
  showModal,
} from '@guildhall/shared';
import {
  type APIChatInputApplicationCommandGuildInteraction,
  type APIGuildInteraction,
  type APIInteraction,
  ApplicationCommandType,
  InteractionType,
} from 'discord-api-types/v10';
import type { TicketsContext } from '../config';
import { displayName } from '../platform/users';
import type { Actor } from '../settings/actor';
import { TicketTypeModel, type TypeRow } from '../settings/model';
import { parseCustomId } from '../tickets/customIds';
import { HandledInteractionModel, TicketModel, type TicketRow } from '../tickets/model';
import { checkCanOpen, findOpening, openTicket } from '../tickets/openTicket';
import { isTicketStaff } from '../tickets/ticketStaff';
import { claimTicket, closeTicket } from '../tickets/transitionTicket';
import { acknowledge } from './acknowledge';
import { modalAnswers, questionsModal } from './questionsModal';
import { onTicketCommand } from './ticketCommand';

/** Handles one interaction of this service; `resumed` when a first run of it died half-way. */
type Handler = (ctx: TicketsContext, interaction: APIGuildInteraction, resumed: boolean) => Promise<void>;

/** The handler of a guild interaction this service answers, or null when it is not one of this service's. */
function handlerOf(interaction: APIInteraction): Handler | null {
  if (interaction.type === InteractionType.ApplicationCommand) {
    if (interaction.data.type !== ApplicationCommandType.ChatInput || interaction.data.name !== COMMAND.ticket) {
      return null;
    }
    return (ctx, i, resumed) => onTicketCommand(ctx, i as APIChatInputApplicationCommandGuildInteraction, resumed);
  }
  if (interaction.type !== InteractionType.MessageComponent && interaction.type !== InteractionType.ModalSubmit) {
    return null;
  }
  const parsed = parseCustomId(interaction.data.custom_id);
  if (!parsed) return null;
  if (parsed.kind === 'open') return (ctx, i, resumed) => onOpenButton(ctx, i, parsed.typeId, resumed);
  if (parsed.kind === 'form') return (ctx, i, resumed) => onForm(ctx, i, parsed.typeId, resumed);
  const action = parsed.kind;
  return (ctx, i, resumed) => onTicketButton(ctx, i, action, resumed);
}

/**
 * Handles an INTERACTION_CREATE dispatch of this service's components and command: the panel button
 * (`ticket:open:<type>`: shows the questions modal, or opens at once when the type has none), the questions modal
 * (`ticket:form:<type>`), the Claim / Close buttons in a ticket's thread and the `/ticket claim|close|reopen` command
 * (`onTicketCommand`). Refusals (blacklist, one open ticket, not staff, illegal
 * transition, platform refusal) are answered with an ephemeral message saying why. Other interactions, and
 * redeliveries of one already handled, are ignored. A platform refusal of the answer itself is logged (the
 * interaction token would not get better); other failures (database) throw, so the dispatch is redelivered.
 * An interaction is marked handled only once its handling is done: a redelivery of one whose process died half-way
 * handles it again, resuming an open (`openTicket` keyed by the interaction id: one ticket, one welcome, one
 * `ticket.opened`); its answer then goes on past a refused acknowledgement (the first run's, or too late).
 */
export async function handleInteraction(ctx: TicketsContext, interaction: APIInteraction): Promise<void> {
  if (!interaction.guild_id || !('member' in interaction) || !interaction.member) return;
  const handler = handlerOf(interaction);
  if (!handler) return;
  const guildInteraction = interaction as APIGuildInteraction;
  let earlier: { done?: boolean } | null;
  try {
    earlier = await HandledInteractionModel.findOneAndUpdate(
      { _id: interaction.id },
      { $setOnInsert: { at: new Date(), done: false } },
      { upsert: true, returnDocument: 'before' },
    ).lean<{ done?: boolean }>();
  } catch (err) {
    if (isDuplicateKey(err)) return;
    throw err;
  }
  if (earlier && earlier.done !== false) return;
  const resumed = earlier !== null;
  try {
    await handler(ctx, guildInteraction, resumed);
  } catch (err) {
    if (!(err instanceof HttpProblem || platformFailure(err).status > 0)) throw err;
    ctx.logger.warn({ err, interaction: interaction.id }, 'could not answer a ticket interaction');
  }
  await HandledInteractionModel.updateOne({ _id: interaction.id }, { $set: { done: true } });
}

function actorOf(interaction: APIGuildInteraction): Actor {
  return { id: interaction.member.user.id, name: displayName(interaction.member.user, interaction.member) };
}

/** The panel button: refuse early (ephemeral), show the questions, or open right away when there are none. */
async function onOpenButton(
  ctx: TicketsContext,
  interaction: APIGuildInteraction,
  typeId: string,
  resumed: boolean,
): Promise<void> {
  const opener = actorOf(interaction);
  let type: TypeRow;
  try {
    type = (await checkCanOpen(interaction.guild_id, typeId, opener.id, findOpening(interaction.id))).type;
  } catch (err) {
    if (err instanceof HttpProblem && err.status < 500)
      return replyEphemeral(ctx.platform, interaction, refusalText(err));
    throw err;
  }
  if (type.questions.length) return showModal(ctx.platform, interaction, questionsModal(type));
  await openAndReport(ctx, interaction, typeId, opener, [], resumed);
}

/** The submitted questions modal: open the ticket with the answers. */
async function onForm(
  ctx: TicketsContext,
  interaction: APIGuildInteraction,
  typeId: string,
  resumed: boolean,
): Promise<void> {
  if (interaction.type !== InteractionType.ModalSubmit) return;
  const type = await TicketTypeModel.findOne({ _id: typeId, guild: interaction.guild_id }).lean<TypeRow>();
  const answers = modalAnswers(interaction.data, type?.questions.length ?? 0);
  await openAndReport(ctx, interaction, typeId, actorOf(interaction), answers, resumed);
}

/**
 * Acknowledges (`acknowledge`), opens the ticket (keyed by the interaction: a resumed run finishes the same ticket)
 * and edits the answer to name it, or the refusal.
 */
async function openAndReport(
  ctx: TicketsContext,
  interaction: APIGuildInteraction,
  typeId: string,
  opener: Actor,
  answers: string[],
  resumed: boolean,
): Promise<void> {
  await acknowledge(ctx, interaction, resumed);
  try {
    const ticket = await openTicket(ctx, interaction.guild_id, typeId, opener, answers, interaction.id);
    await editReply(ctx.platform, interaction, `Your ticket #${ticket.number} is open: <#${ticket.thread}>`);
  } catch (err) {
    if (err instanceof HttpProblem) return editReply(ctx.platform, interaction, refusalText(err));
    throw err;
  }
}

/**
 * Claim (staff only) or Close (staff or the opener) from the buttons of the welcome message, keyed by the
 * interaction (a resumed run finishes the same claim or close).
 */
async function onTicketButton(
  ctx: TicketsContext,
  interaction: APIGuildInteraction,
  action: 'claim' | 'close',
  resumed: boolean,
): Promise<void> {
  const ticket = await TicketModel.findOne({
    thread: interaction.channel_id ?? interaction.channel?.id ?? '',
  }).lean<TicketRow>();
  if (!ticket) return replyEphemeral(ctx.platform, interaction, 'This is not a ticket thread.');
  const actor = actorOf(interaction);
  const staff = await isTicketStaff(ticket, {
    roles: interaction.member.roles,
    permissions: BigInt(interaction.member.permissions ?? '0'),
  });
  if (!staff && !(action === 'close' && actor.id === ticket.opener)) {
    return replyEphemeral(ctx.platform, interaction, `Only staff can ${action} this ticket.`);
  }
  await acknowledge(ctx, interaction, resumed);
  try {
    if (action === 'claim') await claimTicket(ctx, ticket._id, actor, interaction.id);
    else await closeTicket(ctx, { _id: ticket._id }, actor, null, interaction.id);
    await editReply(ctx.platform, interaction, action === 'claim' ? 'You claimed this ticket.' : 'Ticket closed.');
  } catch (err) {
    if (err instanceof HttpProblem) return editReply(ctx.platform, interaction, refusalText(err));
    throw err;
  }
}

/** The member-facing text of a refusal. */
function refusalText(err: HttpProblem): string {
  if (err.status === 404) return 'This ticket type no longer exists.';
  if (err.status === 502) return 'The ticket could not be set up on the server right now. Please try again later.';
  if (err.status === 400) return `Your answers are incomplete: ${err.detail.replace(/^Invalid [^:]+: /, '')}`;
  if (err.detail.includes('blacklisted')) return 'You are not allowed to open tickets on this server.';
  return err.detail.replace('This member already has', 'You already have');
}
