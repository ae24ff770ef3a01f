import { isPlatformNotFound, platformProblem, postOnce } from '@guildhall/shared';
import type { TicketsContext } from '../config';
import { checkPanelChannel } from '../platform/structure';
import type { Actor } from '../settings/actor';
import { loadSettings, loadTypes, saveSettings } from '../settings/loadSettings';
import type { SettingsRow } from '../settings/model';
import { publishSettingsChanges } from '../settings/publishChanges';
import { renderPanel } from './renderPanel';

/**
 * Posts the ticket panel to `channel`, or edits the stored panel message when it is in that channel and still
 * exists on the platform (a panel deleted there is posted anew). Moving the panel to another channel posts it
 * there and deletes the old message. Stores `panelChannel`/`panelMessage` and publishes `settings.updated` when
 * they changed. Throws 400 when `channel` is not a text channel of the guild, 502 when the platform refuses. A new
 * panel is posted once per channel and panel it replaces (`postOnce`): a retry of a post whose answer was lost, or
 * a second request racing the first, shows one panel.
 */
export async function postPanel(
  ctx: TicketsContext,
  guild: string,
  channel: string,
  actor: Actor,
): Promise<SettingsRow> {
  await checkPanelChannel(ctx, guild, channel);
  const settings = await loadSettings(guild);
  const body = renderPanel(settings, await loadTypes(guild));
  let messageId: string | null = null;
  if (settings.panelMessage && settings.panelChannel === channel) {
    messageId = await editPanel(ctx, channel, settings.panelMessage, body);
  }
  if (!messageId) {
    const replacing = settings.panelMessage ?? 'none';
    const posted = await ctx.platform.channels
      .createMessage(channel, {
        ...body,
        ...postOnce(`ticket-panel:${guild}:${channel}:${replacing}`),
      })
      .catch((err) => {
        throw platformProblem(err, 'post the ticket panel');
      });
    messageId = posted.id;
    if (settings.panelMessage && settings.panelChannel && settings.panelChannel !== channel) {
      await removeOldPanel(ctx, settings.panelChannel, settings.panelMessage);
    }
  }
  const after = await saveSettings(guild, { panelChannel: channel, panelMessage: messageId });
  await publishSettingsChanges(ctx, guild, settings, after, ['panelChannel', 'panelMessage'], actor);
  return after;
}

/**
 * Re-renders a posted panel after its types changed (so its buttons match). A panel that is gone or a refusal is
 * logged, not thrown: the change itself is stored, and the next `POST .../tickets/panel` posts a fresh panel.
 */
export async function refreshPanel(ctx: TicketsContext, guild: string): Promise<void> {
  const settings = await loadSettings(guild);
  if (!settings.panelChannel || !settings.panelMessage) return;
  const body = renderPanel(settings, await loadTypes(guild));
  try {
    const edited = await editPanel(ctx, settings.panelChannel, settings.panelMessage, body);
    if (!edited) ctx.logger.warn({ guild }, 'ticket panel no longer exists; post it again');
  } catch (err) {
    ctx.logger.warn({ err, guild }, 'could not refresh the ticket panel');
  }
}

/** Edits the panel message; null when it no longer exists on the platform; 502 on another refusal. */
async function editPanel(
  ctx: TicketsContext,
  channel: string,
  message: string,
  body: ReturnType<typeof renderPanel>,
): Promise<string | null> {
  try {
    const edited = await ctx.platform.channels.editMessage(channel, message, {
      content: body.content,
      components: body.components,
      allowed_mentions: body.allowed_mentions,
    });
    return edited.id;
  } catch (err) {
    if (isPlatformNotFound(err)) return null;
    throw platformProblem(err, 'edit the ticket panel');
  }
}

/** Deletes the previous panel after a move; a message already gone is fine, another refusal is logged. */
async function removeOldPanel(ctx: TicketsContext, channel: string, message: string): Promise<void> {
  await ctx.platform.channels.deleteMessage(channel, message).catch((err) => {
    if (!isPlatformNotFound(err)) ctx.logger.warn({ err, channel, message }, 'could not delete the old ticket panel');
  });
}
