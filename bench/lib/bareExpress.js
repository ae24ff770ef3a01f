/**
 * The "bare express handler" ceiling of the read benchmarks, run as its own process like a service: an express 5 app
 * answering GET `BARE_PATH` with the JSON body in `BARE_BODY` (the same bytes the measured service answers) and
 * nothing else (no identity check, validation, logging, database). Prints `listening on <url>` once it listens on a
 * free loopback port. Started by `startBareCeilings` in bench/lib/ceilings.js.
 */
const express = require('express');

const body = JSON.parse(process.env.BARE_BODY);
const app = express();
app.get(process.env.BARE_PATH, (_req, res) => {
  res.json(body);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
