/**
 * The "bare proxy hop" ceiling of the read benchmarks, run as its own process like the gateway: an express 5 app whose
 * only middleware is http-proxy-middleware (keep-alive agent, as the gateway's) to `BARE_TARGET`, the bare express
 * handler's origin; no session, rate limit, access check, identity token, logging or metrics. What it serves per
 * second against the bare express handler alone is what an empty gateway could reach against a service that does
 * nothing, on the same cores. Prints `listening on <url>` once it listens on a free loopback port. Started by
 * `startBareCeilings` in bench/lib/ceilings.js.
 */
const { Agent } = require('node:http');
const express = require('express');
const { createProxyMiddleware } = require('http-proxy-middleware');

const app = express();
app.use(
  createProxyMiddleware({
    target: process.env.BARE_TARGET,
    agent: new Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 64, keepAliveMsecs: 10_000 }),
  }),
);
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
