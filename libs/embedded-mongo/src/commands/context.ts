import type { CursorManager } from '../cursors';
import type { Logger, Storage } from '../storage/engine';
import type { Doc } from '../values';

/** Server-wide facts a command may report. */
export interface ServerInfo {
  host: string;
  port: number;
  startedAt: number;
  connections: () => { current: number; totalCreated: number };
}

/** What a command handler gets besides its command document. */
export interface CommandContext {
  storage: Storage;
  cursors: CursorManager;
  /** Database of the command (`$db`). */
  db: string;
  connectionId: number;
  server: ServerInfo;
  logger: Logger;
}

/** A command handler: returns the reply document (errors are thrown as MongoCommandError). */
export type Handler = (cmd: Doc, ctx: CommandContext) => Doc | Promise<Doc>;

/** The command's collection name argument (the value of its first key). */
export function collName(cmd: Doc): string {
  const v = Object.values(cmd)[0];
  return String(v);
}

/** A numeric command argument (ints, doubles and Longs), or `undefined` when absent. */
export function num(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const o = v as { toNumber?: () => number };
  return typeof o.toNumber === 'function' ? o.toNumber() : Number(v);
}
