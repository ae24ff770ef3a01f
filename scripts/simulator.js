/**
 * The platform simulator for local use without a bot token: the same fake chat platform the tests use (REST API
 * checked against the platform's OpenAPI description, OAuth2 login, the real-time gateway at `fake.gatewayUrl`) with
 * the demo guild's staff as OAuth2 users. The demo guild "Lantern Hall" itself arrives when `npm start` drives its
 * day through the simulator (`guildDayDriver`) once the bridge is connected. Its state lives in memory for the life
 * of `npm start`.
 */
const path = require('node:path');

const simulator = require(path.join(__dirname, '..', 'libs', 'platform-simulator', 'dist'));

/**
 * Starts the simulator on `port` with `clock` (a `DayClock`: the platform's time, set by the day's driver, the wall
 * clock once released) and seeds the demo guild's staff as OAuth2 users (the owner signs in by default).
 */
async function startSimulator({ port, clock }) {
  const { startFakePlatform, FIXTURE_IDS } = simulator;
  const fake = await startFakePlatform({ port, clock: { now: () => clock.now() } });
  const guild = { id: FIXTURE_IDS.guild, name: 'Lantern Hall' };
  const users = [
    [FIXTURE_IDS.moderator, 'dario65', false],
    [FIXTURE_IDS.admin, 'selma39', false],
    [FIXTURE_IDS.owner, 'rowan89', true],
  ];
  for (const [id, username, owner] of users) {
    fake.seedUser({ id, username, guilds: [{ ...guild, owner, permissions: owner ? '8' : '32' }] });
  }
  return fake;
}

module.exports = { startSimulator };
