import { modalValues } from '@guildhall/shared';
import {
  type APIModalInteractionResponseCallbackData,
  type APIModalSubmission,
  ComponentType,
  TextInputStyle,
} from 'discord-api-types/v10';
import type { TypeRow } from '../settings/model';
import { customIds } from '../tickets/customIds';

/** Longest answers the modal accepts: 1000 chars for paragraph questions, 200 for short ones. */
const LONG_MAX = 1000;
const SHORT_MAX = 200;
/** Modal titles hold at most 45 characters on the platform. */
const TITLE_MAX = 45;

/** The questions modal of a type: one text input per question (custom id `ticket:answer:<i>`). */
export function questionsModal(type: TypeRow): APIModalInteractionResponseCallbackData {
  return {
    custom_id: customIds.form(type._id),
    title: type.name.slice(0, TITLE_MAX),
    components: type.questions.map((q, i) => ({
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.TextInput,
          custom_id: customIds.answer(i),
          label: q.label,
          style: q.long ? TextInputStyle.Paragraph : TextInputStyle.Short,
          required: q.required,
          max_length: q.long ? LONG_MAX : SHORT_MAX,
          ...(q.placeholder ? { placeholder: q.placeholder } : {}),
        },
      ],
    })),
  };
}

/**
 * The answers of a submitted questions modal, in question order (`ticket:answer:<i>` inputs, trimmed; '' for a
 * question without an answer), in either layout the platform sends (see `modalValues`).
 */
export function modalAnswers(data: APIModalSubmission, questionCount: number): string[] {
  const values = modalValues(data.components as unknown as unknown[]);
  return Array.from({ length: questionCount }, (_, i) => (values.get(customIds.answer(i)) ?? '').trim());
}
