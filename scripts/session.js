#!/usr/bin/env node
/**
 * `npm run session -- --user ID [--name NAME] [--ttl-hours H]`: creates a dashboard session for a platform user id
 * in the system `npm start` runs (found through data/stack.json; MONGO_URL / MONGO_DB / GATEWAY_URL override) and
 * prints the `service_session` cookie. For local use: it needs no OAuth2 configuration.
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const stackFile = path.join(path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data')), 'stack.json');
const running = fs.existsSync(stackFile) ? JSON.parse(fs.readFileSync(stackFile, 'utf8')) : {};
if (!process.env.MONGO_URL && !running.mongoUrl) {
  process.stderr.write('No running Guildhall found (data/stack.json): start it with `npm start`, or set MONGO_URL.\n');
  process.exit(2);
}
const env = {
  ...process.env,
  MONGO_URL: process.env.MONGO_URL ?? running.mongoUrl,
  MONGO_DB: process.env.MONGO_DB ?? 'guildhall_gateway',
  GATEWAY_URL: process.env.GATEWAY_URL ?? running.gatewayUrl,
};
const { main } = require(path.join(ROOT, 'services/gateway/dist/cli/createSession.js'));
main(process.argv.slice(2), env).then((code) => process.exit(code));
