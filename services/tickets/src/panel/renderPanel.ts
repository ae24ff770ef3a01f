import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIMessageComponentEmoji,
  ButtonStyle,
  ComponentType,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import type { SettingsRow, TypeRow } from '../settings/model';
import { customIds } from '../tickets/customIds';

/** The platform's limits on message components: buttons per action row, action rows per message. */
const BUTTONS_PER_ROW = 5;
const ROWS_PER_MESSAGE = 5;

/** A stored emoji (`<:name:id>`, `<a:name:id>` or Unicode) as a component emoji. */
export function componentEmoji(emoji: string | null): APIMessageComponentEmoji | undefined {
  if (!emoji) return undefined;
  const custom = /^<(a?):(\w{2,32}):([0-9]{1,20})>$/.exec(emoji);
  if (custom) return { id: custom[3], name: custom[2], animated: custom[1] === 'a' };
  return { name: emoji };
}

/**
 * The panel message: the panel text and one primary button per ticket type (custom id `ticket:open:<typeId>`),
 * five to a row, at most five rows. Mentions in the text never ping.
 */
export function renderPanel(settings: SettingsRow, types: TypeRow[]): RESTPostAPIChannelMessageJSONBody {
  const buttons: APIButtonComponentWithCustomId[] = types.slice(0, BUTTONS_PER_ROW * ROWS_PER_MESSAGE).map((t) => {
    const emoji = componentEmoji(t.emoji);
    return {
      type: ComponentType.Button,
      style: ButtonStyle.Primary,
      label: t.name,
      custom_id: customIds.open(t._id),
      ...(emoji ? { emoji } : {}),
    };
  });
  const components: APIActionRowComponent<APIButtonComponentWithCustomId>[] = [];
  for (let i = 0; i < buttons.length; i += BUTTONS_PER_ROW) {
    components.push({ type: ComponentType.ActionRow, components: buttons.slice(i, i + BUTTONS_PER_ROW) });
  }
  return { content: settings.panelText, components, allowed_mentions: { parse: [] } };
}
