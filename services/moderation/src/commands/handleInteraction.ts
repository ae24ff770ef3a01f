import { COMMAND } from '@guildhall/shared';
import {
  type APIChatInputApplicationCommandGuildInteraction,
  type APIInteraction,
  type APIMessageApplicationCommandGuildInteraction,
  type APIMessageComponentGuildInteraction,
  type APIModalSubmitGuildInteraction,
  type APIUserApplicationCommandGuildInteraction,
  ApplicationCommandType,
  InteractionType,
} from 'discord-api-types/v10';
import type { ModerationContext } from '../config';
import { fileReport } from '../reports/fileReport';
import { openReportModal, REPORT_MODAL_PREFIX } from '../reports/reportModal';
import { runCaseCommand } from './caseCommands';
import { askConfirmation, CANCEL_PREFIX, CONFIRM_PREFIX, settleConfirmation } from './confirmations';
import { handleLookup } from './lookups';
import { runUnban } from './unban';
import { openWarnModal, submitWarnModal, WARN_MODAL_PREFIX } from './warnMenu';

/** An application command used in a guild: a chat input command or a user or message context menu. */
type GuildCommand =
  | APIChatInputApplicationCommandGuildInteraction
  | APIUserApplicationCommandGuildInteraction
  | APIMessageApplicationCommandGuildInteraction;

/** Custom id prefix of the lookup commands' components and modals. */
const LOOKUP_PREFIX = 'mod:lookup:';
/** Commands answered by the lookups (`handleLookup`). */
const LOOKUPS = new Set<string>([COMMAND.case, COMMAND.history, COMMAND.record]);

/**
 * Routes an INTERACTION_CREATE payload (`d`) moderation answers; interactions outside a guild and every other
 * interaction (tickets' buttons and modals, other services' commands) are ignored:
 * - "Report message" (message context menu) -> `openReportModal`, its modal `mod:report:*` -> `fileReport`;
 * - `/warn`, `/timeout` -> `runCaseCommand`; `/kick`, `/ban` -> `askConfirmation`, their buttons `mod:confirm:*`,
 *   `mod:cancel:*` -> `settleConfirmation`; `/unban` -> `runUnban`; "Warn" (user context menu) -> `openWarnModal`,
 *   its modal `mod:warn:*` -> `submitWarnModal`;
 * - `/case`, `/history`, "Member record" (commands and their autocomplete), components and modals `mod:lookup:*` ->
 *   `handleLookup`.
 * Every command answers ephemerally; what it acts on is keyed by an interaction id, so a redelivered dispatch acts once.
 */
export async function handleInteraction(ctx: ModerationContext, d: APIInteraction): Promise<void> {
  if (!d.guild_id || !d.member) return;
  switch (d.type) {
    case InteractionType.ApplicationCommand:
      return routeCommand(ctx, d as GuildCommand);
    case InteractionType.ApplicationCommandAutocomplete:
      if (LOOKUPS.has(d.data.name)) await handleLookup(ctx, d);
      return;
    case InteractionType.MessageComponent: {
      const id = d.data.custom_id;
      if (id.startsWith(CONFIRM_PREFIX) || id.startsWith(CANCEL_PREFIX))
        await settleConfirmation(ctx, d as APIMessageComponentGuildInteraction);
      else if (id.startsWith(LOOKUP_PREFIX)) await handleLookup(ctx, d);
      return;
    }
    case InteractionType.ModalSubmit: {
      const id = d.data.custom_id;
      if (id.startsWith(WARN_MODAL_PREFIX)) await submitWarnModal(ctx, d as APIModalSubmitGuildInteraction);
      else if (id.startsWith(REPORT_MODAL_PREFIX)) await fileReport(ctx.platform, ctx.outbox, ctx.logger, d);
      else if (id.startsWith(LOOKUP_PREFIX)) await handleLookup(ctx, d);
      return;
    }
    default:
      return;
  }
}

/** Routes an application command by its name (and type, for the context menus). */
async function routeCommand(ctx: ModerationContext, d: GuildCommand): Promise<void> {
  const { name } = d.data;
  if (d.data.type === ApplicationCommandType.Message) {
    if (name === COMMAND.report)
      await openReportModal(ctx.platform, ctx.logger, d as APIMessageApplicationCommandGuildInteraction);
    return;
  }
  if (LOOKUPS.has(name)) return handleLookup(ctx, d);
  if (d.data.type === ApplicationCommandType.User) {
    if (name === COMMAND.warnUser) await openWarnModal(ctx, d as APIUserApplicationCommandGuildInteraction);
    return;
  }
  const chat = d as APIChatInputApplicationCommandGuildInteraction;
  switch (name) {
    case COMMAND.warn:
    case COMMAND.timeout:
      return runCaseCommand(ctx, chat, name);
    case COMMAND.kick:
    case COMMAND.ban:
      return askConfirmation(ctx, chat, name);
    case COMMAND.unban:
      return runUnban(ctx, chat);
    default:
      return;
  }
}
