import { DiscordError } from './errors';
import type { PlatformState } from './state';

/** A call to a documented operation the simulator does not model (answered 501). */
export interface UnmodelledCall {
  /** HTTP method, upper case. */
  method: string;
  /** The operation's OpenAPI path template, e.g. `/guilds/{guild_id}/invites`. */
  route: string;
  /** When it was answered, on the simulator's clock. */
  at: Date;
}

/**
 * The answer to a call of an operation Discord's OpenAPI description documents but the simulator does not model:
 * 501 with `{ message: "<METHOD> <route> is not modelled by the simulator", code: 0 }`, thrown as a `DiscordError` so
 * a REST client gets the answer and `actAsUser` rejects with it. Nothing changes on the platform: a made-up success
 * would let a service depending on the route pass every test and fail on the real platform. The call is appended to
 * `state.unmodelled` (what the test harnesses check) and the first call of each route is logged at warn level.
 */
export function notModelled(state: PlatformState, method: string, route: string): DiscordError {
  const message = `${method} ${route} is not modelled by the simulator`;
  if (!state.unmodelled.some((c) => c.method === method && c.route === route))
    console.warn(`platform simulator: ${message} (answered 501)`);
  state.unmodelled.push({ method, route, at: state.clock.now() });
  return new DiscordError(501, 0, message);
}
