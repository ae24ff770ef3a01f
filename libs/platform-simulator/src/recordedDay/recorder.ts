import { type GatewayDispatchPayload, GatewayOpcodes } from 'discord-api-types/v10';
import type { DispatchData, DispatchName } from '../gateway/dispatch';

export type { DispatchData, DispatchName };

/**
 * Collects gateway dispatch payloads in order (keys in the gateway's order `t, s, op, d`), numbering them like one gateway session does: sequence 1 is the
 * session's READY (not recorded), so the first recorded dispatch has `s` 2.
 */
export class Recorder {
  readonly payloads: GatewayDispatchPayload[] = [];
  private seq = 1;

  /**
   * Records the dispatch `t` with data `d` (type-checked against the event's gateway type) as it is at this moment:
   * `d` is copied, so later changes of the generator's live objects never leak into an earlier dispatch.
   */
  emit<E extends DispatchName>(t: E, d: DispatchData<E>): void {
    this.seq += 1;
    const snapshot = structuredClone(d);
    this.payloads.push({ t, s: this.seq, op: GatewayOpcodes.Dispatch, d: snapshot } as GatewayDispatchPayload);
  }
}
