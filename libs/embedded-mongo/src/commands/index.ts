import { MongoCommandError, toCommandError } from '../errors';
import type { Doc } from '../values';
import { adminCommands, transactionsRefused } from './admin';
import type { CommandContext, Handler } from './context';
import { crudCommands } from './crud';
import { ddlCommands } from './ddl';

const handlers: Record<string, Handler> = { ...adminCommands, ...ddlCommands, ...crudCommands };

const TRANSACTION_COMMANDS = new Set(['commitTransaction', 'abortTransaction']);

/**
 * Runs one command document and returns its reply. Never throws: failures become
 * `{ok: 0, errmsg, code, codeName}` (MongoDB's shape), unknown commands code 59 CommandNotFound,
 * and multi-document transactions code 20 IllegalOperation.
 */
export async function runCommand(cmd: Doc, ctx: CommandContext): Promise<Doc> {
  const name = Object.keys(cmd)[0] ?? '';
  try {
    if (TRANSACTION_COMMANDS.has(name) || cmd.startTransaction === true || cmd.autocommit === false) {
      throw transactionsRefused();
    }
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    if (!handler) throw new MongoCommandError('CommandNotFound', `no such command: '${name}'`);
    return await handler(cmd, ctx);
  } catch (err) {
    const e = toCommandError(err);
    if (e.code === 1) ctx.logger.error('embedded-mongo: command failed', name, err);
    return e.toReply();
  }
}
