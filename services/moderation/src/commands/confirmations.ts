import {
  assertHierarchy,
  BAN_DELETE_CHOICES,
  badRequest,
  deferEphemeral,
  platformFailure,
  type ReplyContent,
  replyEphemeral,
  updateMessage,
} from '@guildhall/shared';
import {
  type APIChatInputApplicationCommandGuildInteraction,
  type APIMessageComponentGuildInteraction,
  ButtonStyle,
  ComponentType,
} from 'discord-api-types/v10';
import { hierarchyPeer } from '../cases/hierarchyPeer';
import type { ModerationContext } from '../config';
import { actOnCase, durationText, parseCaseBody } from './actOnCase';
import { answerWith, deferCommand } from './answers';
import { checkCallerCap } from './callerAccess';
import { CONFIRMATION_TTL_MS, ConfirmationModel, type ConfirmationRow } from './confirmationModel';
import { caller, optionValue, resolvedName } from './options';

/** Custom id prefixes of the Confirm and Cancel buttons; the command's interaction id follows. */
export const CONFIRM_PREFIX = 'mod:confirm:';
export const CANCEL_PREFIX = 'mod:cancel:';

const VERB = { kick: 'Kick', ban: 'Ban' } as const;
const DOING = { kick: 'Kicking', ban: 'Banning' } as const;

/** How much of a banned user's messages are deleted, as its choice names it ("previous hour"), else in seconds. */
function deletedText(seconds: number): string {
  const choice = BAN_DELETE_CHOICES.find((c) => c.value === seconds);
  return choice ? choice.name.toLowerCase() : `the last ${seconds} seconds`;
}

/** The question and its Confirm / Cancel buttons. */
function question(row: ConfirmationRow): ReplyContent {
  const { body } = row;
  const extras = [
    body.duration === undefined ? null : `for ${durationText(body.duration)}`,
    body.deleteMessageSeconds ? `deleting their messages (${deletedText(body.deleteMessageSeconds)})` : null,
  ].filter(Boolean);
  return {
    content:
      `${VERB[body.action]} ${row.targetName} (${body.target})${extras.length ? ` ${extras.join(', ')}` : ''}? ` +
      `Reason: ${body.reason}\nThis waits 15 minutes for your answer.`,
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Danger,
            label: 'Confirm',
            custom_id: `${CONFIRM_PREFIX}${row._id}`,
          },
          {
            type: ComponentType.Button,
            style: ButtonStyle.Secondary,
            label: 'Cancel',
            custom_id: `${CANCEL_PREFIX}${row._id}`,
          },
        ],
      },
    ],
  };
}

/**
 * `/kick member reason` and `/ban user reason [delete_messages] [duration]` (cap `cases.write`) ask first: deferred
 * (ephemeral), the caller's cap, the body (as the API checks it), themselves and the role hierarchy are checked (a
 * refusal names the problem), then the command is stored `pending` in MongoDB for 15 minutes (keyed by the
 * interaction id: a redelivered dispatch stores and asks once) and the answer shows Confirm / Cancel buttons.
 */
export async function askConfirmation(
  ctx: ModerationContext,
  interaction: APIChatInputApplicationCommandGuildInteraction,
  action: 'kick' | 'ban',
): Promise<void> {
  await deferCommand(ctx, interaction, (i) => deferEphemeral(ctx.platform, i));
  await answerWith(ctx, interaction, async () => {
    const guild = interaction.guild_id;
    const moderator = caller(interaction.member);
    const check = await checkCallerCap(ctx, guild, moderator.sub, 'cases.write');
    if (!check.allowed) return check.refusal;
    const target = String(optionValue(interaction.data, action === 'kick' ? 'member' : 'user') ?? '');
    const duration = optionValue(interaction.data, 'duration');
    const deleteMessageSeconds = optionValue(interaction.data, 'delete_messages');
    const body = parseCaseBody({
      action,
      target,
      reason: String(optionValue(interaction.data, 'reason') ?? ''),
      ...(typeof duration === 'number' ? { duration } : {}),
      ...(typeof deleteMessageSeconds === 'number' ? { deleteMessageSeconds } : {}),
    });
    if (body.target === moderator.sub) throw badRequest(`You cannot ${action} yourself.`);
    const peer = hierarchyPeer(ctx);
    await assertHierarchy(
      peer.bus,
      { guild, actor: moderator.sub, target: body.target, action: 'act' },
      peer.timeoutMs,
    );
    const row: ConfirmationRow = {
      _id: interaction.id,
      guild,
      moderator: moderator.sub,
      moderatorName: moderator.name,
      targetName: resolvedName(interaction.data.resolved, body.target),
      body: { ...body, action },
      state: 'pending',
      expiresAt: new Date(Date.now() + CONFIRMATION_TTL_MS),
    };
    const { _id, ...fields } = row;
    const stored = await ConfirmationModel.findOneAndUpdate(
      { _id },
      { $setOnInsert: fields },
      { upsert: true, returnDocument: 'after' },
    ).lean<ConfirmationRow>();
    return question(stored ?? row);
  });
}

/** Answers a button press with an ephemeral note, its message unchanged; a refusal of the platform is logged. */
async function note(ctx: ModerationContext, interaction: APIMessageComponentGuildInteraction, text: string) {
  try {
    await replyEphemeral(ctx.platform, interaction, text);
  } catch (err) {
    ctx.logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not answer a button');
  }
}

/**
 * A press of Confirm or Cancel (`mod:confirm:<id>`, `mod:cancel:<id>`). Only the moderator who ran the command may
 * press them (others get an ephemeral note). A lapsed confirmation (15 minutes, or its row gone) acts on nothing and
 * says so. Cancel marks it `cancelled` and changes nothing ("Cancelled: nothing was done"); Confirm marks it
 * `confirmed`, replaces the question (callback type 7) and opens the case as the API does (`actOnCase`, keyed by the
 * confirmation, so a second Confirm or a redelivered press acts once and shows the same case), the caller's cap
 * checked again. A cancelled confirmation cannot be confirmed, nor a confirmed one cancelled.
 */
export async function settleConfirmation(
  ctx: ModerationContext,
  interaction: APIMessageComponentGuildInteraction,
): Promise<void> {
  const customId = interaction.data.custom_id;
  const confirm = customId.startsWith(CONFIRM_PREFIX);
  const id = customId.slice((confirm ? CONFIRM_PREFIX : CANCEL_PREFIX).length);
  const row = await ConfirmationModel.findById(id).lean<ConfirmationRow>();
  const presser = interaction.member.user.id;
  if (!row || row.expiresAt.getTime() <= Date.now()) {
    await deferCommand(ctx, interaction, (i) =>
      updateMessage(ctx.platform, i, {
        content: 'This confirmation lapsed: nothing was done. Run the command again.',
        components: [],
      }),
    );
    return;
  }
  if (row.moderator !== presser) {
    await note(ctx, interaction, `Only ${row.moderatorName}, who ran the command, can confirm or cancel it.`);
    return;
  }
  const settled = await ConfirmationModel.findOneAndUpdate(
    { _id: id, state: { $in: confirm ? ['pending', 'confirmed'] : ['pending', 'cancelled'] } },
    { $set: { state: confirm ? 'confirmed' : 'cancelled' } },
    { returnDocument: 'after' },
  ).lean<ConfirmationRow>();
  if (!settled) {
    await note(ctx, interaction, confirm ? 'This was cancelled: nothing was done.' : 'This was already confirmed.');
    return;
  }
  if (!confirm) {
    await deferCommand(ctx, interaction, (i) =>
      updateMessage(ctx.platform, i, {
        content: `Cancelled: ${row.targetName} was not ${row.body.action === 'kick' ? 'kicked' : 'banned'}; nothing was done.`,
        components: [],
      }),
    );
    return;
  }
  await deferCommand(ctx, interaction, (i) =>
    updateMessage(ctx.platform, i, { content: `${DOING[row.body.action]} ${row.targetName}…`, components: [] }),
  );
  await answerWith(ctx, interaction, async () => {
    const check = await checkCallerCap(ctx, row.guild, presser, 'cases.write');
    if (!check.allowed) return check.refusal;
    return actOnCase(ctx, {
      guild: row.guild,
      moderator: { sub: row.moderator, name: row.moderatorName },
      key: `confirm:${row._id}`,
      body: row.body,
    });
  });
}
