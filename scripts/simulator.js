/**
 * The platform simulator for local use without a bot token: the same fake chat platform the tests use (REST API
 * checked against the platform's OpenAPI description, OAuth2 login), seeded with the demo guild "Lantern Hall" as it
 * is after the recorded day that ends at `dayStart + 24 h`. Its state lives in memory for the life of `npm start`.
 */
const path = require('node:path');

const dist = (name) => require(path.join(__dirname, '..', 'libs', 'shared', 'dist', name));

/** Starts the simulator on `port` and seeds the demo guild and its staff as OAuth2 users (the owner signs in by default). */
async function startSimulator({ port, dayStart }) {
  const { startFakePlatform } = dist('testing');
  const { fixtureSeedGuild, FIXTURE_IDS } = dist('platformBridge');
  const fake = await startFakePlatform({ port });
  fake.seedGuild(fixtureSeedGuild(fake.botUserId, 'end', dayStart));
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
