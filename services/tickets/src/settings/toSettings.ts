import type { TicketSettings, TicketType } from '@guildhall/shared';
import type { z } from 'zod';
import type { SettingsRow, TypeRow } from './model';

/** Stored settings -> API `TicketSettings`. */
export function toSettings(row: SettingsRow): z.infer<typeof TicketSettings> {
  return {
    guild: row._id,
    panelChannel: row.panelChannel ?? null,
    panelMessage: row.panelMessage ?? null,
    panelText: row.panelText,
    welcomeText: row.welcomeText,
    pingStaff: row.pingStaff,
    remindAfter: row.remindAfter,
    closeAfter: row.closeAfter,
    blacklist: [...(row.blacklist ?? [])],
  };
}

/** Stored type -> API `TicketType`. */
export function toType(row: TypeRow): z.infer<typeof TicketType> {
  return {
    id: row._id,
    name: row.name,
    emoji: row.emoji ?? null,
    description: row.description ?? '',
    oneOpen: row.oneOpen,
    staffRoles: [...(row.staffRoles ?? [])],
    questions: (row.questions ?? []).map((q) => ({
      label: q.label,
      placeholder: q.placeholder ?? '',
      long: q.long,
      required: q.required,
    })),
  };
}
