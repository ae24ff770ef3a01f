/**
 * The demo guild's ticket setup as it stood before its day: the panel the bot posted in #tickets
 * (`FIXTURE_IDS.panelMessage`, button `ticket:open:<TICKET_TYPE_ID>`) and its one ticket type "Open a ticket" with the
 * two questions the day's member answers. Written straight into the tickets database of a simulated `npm start`
 * (a type cannot be created with a given id through the API), once: rows that exist are left as they are, so
 * changes made from the dashboard survive a restart on the same DATA_DIR.
 */
const path = require('node:path');
const { MongoClient } = require('mongodb');
const { ROOT } = require('./stack');

/** Upserts the fixture guild's ticket settings and type into database `dbName` at `mongoUrl` (insert only). */
async function seedFixtureTickets(mongoUrl, dbName, simulatorLib) {
  const { FIXTURE_IDS: ids, TICKET_TYPE_ID } = simulatorLib;
  const { defaultSettings } = require(path.join(ROOT, 'services/tickets/dist/settings/loadSettings'));
  const client = await MongoClient.connect(mongoUrl, { serverMonitoringMode: 'poll' });
  try {
    const db = client.db(dbName);
    const { _id, ...defaults } = defaultSettings(ids.guild);
    await db
      .collection('settings')
      .updateOne(
        { _id },
        { $setOnInsert: { ...defaults, panelChannel: ids.channels.tickets, panelMessage: ids.panelMessage } },
        { upsert: true },
      );
    await db.collection('types').updateOne(
      { _id: TICKET_TYPE_ID },
      {
        $setOnInsert: {
          guild: ids.guild,
          position: 0,
          name: 'Open a ticket',
          emoji: '🎫',
          description: 'Anything the staff can help with',
          oneOpen: true,
          staffRoles: [ids.roles.moderator],
          questions: [
            { label: 'What is it about?', placeholder: '', long: false, required: true },
            { label: 'Tell us more', placeholder: '', long: true, required: false },
          ],
        },
      },
      { upsert: true },
    );
  } finally {
    await client.close();
  }
}

module.exports = { seedFixtureTickets };
