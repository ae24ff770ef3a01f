import { ok, type RouteTable } from '../context';
import { errors } from '../errors';

/** GET /gateway and GET /gateway/bot: where the simulator gateway listens (`ws://127.0.0.1:PORT/gateway`). */
export const gatewayRoutes: RouteTable = {
  'GET /gateway/bot': (ctx) => {
    if (!ctx.state.gatewayBot) throw errors.notFound();
    return ok(ctx.state.gatewayBot());
  },
  'GET /gateway': (ctx) => {
    if (!ctx.state.gatewayBot) throw errors.notFound();
    return ok({ url: ctx.state.gatewayBot().url });
  },
};
