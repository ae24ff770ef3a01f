import { type Crash, dyingProcess } from '@guildhall/testkit';
import type { TicketsContext } from '../src/config';
import { OpenLockModel, TicketModel, TransitionKeyModel } from '../src/tickets/model';

/**
 * The service context `live` dying at `crash` (null: never; see `dyingProcess`): its platform calls and emits are the
 * counted steps, and once it died every later write (`deleteOne` / `updateOne` of tickets, one-open slots and
 * transition keys) throws "process died" too. Restores earlier jest mocks first; `calls()` is the count.
 */
export function dyingContext(live: TicketsContext, crash: Crash | null) {
  jest.restoreAllMocks();
  const process = dyingProcess(crash);
  const platform = process.wrap(live.platform, ['channels', 'threads', 'interactions', 'guilds']);
  const outbox = { emit: (...args: unknown[]) => process.step(() => (live.outbox.emit as Function)(...args)) };
  // the writes after a refusal or the last step (a killed process makes none)
  type Writes = Record<'deleteOne' | 'updateOne', (...args: unknown[]) => unknown>;
  for (const model of [TicketModel, OpenLockModel, TransitionKeyModel] as unknown as Writes[]) {
    for (const method of ['deleteOne', 'updateOne'] as const) {
      const write = model[method].bind(model);
      jest.spyOn(model, method).mockImplementation((...args: unknown[]) => {
        if (process.dead()) throw new Error('process died');
        return write(...args);
      });
    }
  }
  return { ctx: { ...live, platform, outbox } as TicketsContext, calls: process.calls };
}
