import { type AccessReply, type AccessRequest, type HierarchyRequest, RPC } from '@guildhall/shared';
import { accessFromFake, hierarchyFromFake, structureFromFake, waitFor } from '@guildhall/testkit';
import { ApplicationCommandOptionType, ApplicationCommandType, InteractionType } from 'discord-api-types/v10';
import { type Harness, startHarness } from './harness';

/**
 * `/ticket claim|close|reopen` in a ticket thread (issue 30): the same transitions as the API, for callers with the
 * `tickets.manage` cap (from community's RPC.access, answered here from the fake platform plus `caps`), a claim only
 * for staff of the ticket's type; ephemeral answers; refusals change nothing.
 */
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
/** Caps community grants each user in these tests; `accessDown`: community does not answer. */
const caps = new Map<string, string[]>();
let accessDown = false;

beforeAll(async () => {
  h = await startHarness({}, false);
  h.peer.reply<{ guild: string }, unknown>(RPC.structure, async ({ guild }) => structureFromFake(h.fake, guild));
  h.peer.reply<HierarchyRequest, unknown>(RPC.hierarchy, async (req) => hierarchyFromFake(h.fake, req));
  h.peer.reply<AccessRequest, AccessReply>(RPC.access, async ({ guild, user }) => {
    if (accessDown) throw new Error('community is down');
    return { ...accessFromFake(h.fake, guild, user), caps: (caps.get(user) ?? []) as AccessReply['caps'] };
  });
});
afterAll(async () => {
  await h?.close();
});

/** `user` runs `/ticket <sub>` (with `reason` for close) in `channel`: an INTERACTION_CREATE type 2 payload. */
function ticketCommand(user: string, channel: string, sub: 'claim' | 'close' | 'reopen', reason?: string) {
  const base = h.interaction(user, 'unused', { channel });
  return {
    ...base,
    type: InteractionType.ApplicationCommand,
    data: {
      id: '1000000000000000011',
      name: 'ticket',
      type: ApplicationCommandType.ChatInput,
      options: [
        {
          type: ApplicationCommandOptionType.Subcommand,
          name: sub,
          options: reason ? [{ type: ApplicationCommandOptionType.String, name: 'reason', value: reason }] : [],
        },
      ],
    },
  };
}

/** Runs the command and waits for its answer: the immediate reply's content, else the deferred answer's final text. */
async function run(command: ReturnType<typeof ticketCommand>): Promise<{ ephemeral: boolean; content: string }> {
  await h.dispatch('INTERACTION_CREATE', command);
  const callback = await waitFor(() =>
    h.fake
      .callsTo('POST', '/interactions/{interaction_id}/{interaction_token}/callback')
      .find((c) => c.path.includes(command.id)),
  );
  const body = callback.body as { type: number; data: { flags?: number; content?: string } };
  const ephemeral = ((body.data?.flags ?? 0) & 64) === 64;
  if (body.type === 4) return { ephemeral, content: body.data.content ?? '' };
  expect(body.type).toBe(5);
  const edit = await waitFor(() =>
    h.fake
      .callsTo('PATCH', '/webhooks/{webhook_id}/{webhook_token}/messages/@original')
      .find((c) => c.path.includes(command.token)),
  );
  return { ephemeral, content: (edit.body as { content: string }).content };
}

const ticket = async (n: number) => (await h.call('GET', `${base()}/${n}`)).body.ticket;

it('claims, closes with a reason and reopens a ticket from its thread for staff with tickets.manage, ephemerally', async () => {
  const type = await h.call('POST', `${base()}/types`, {
    body: { name: 'Support', oneOpen: false, staffRoles: [h.seed.ids.supportRole] },
  });
  expect(type.status).toBe(201);
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
  const opened = await h.call('POST', base(), { body: { type: type.body.id, opener: h.seed.ids.member } });
  expect(opened.status).toBe(201);
  const thread = opened.body.thread;
  caps.set(h.seed.ids.support, ['tickets.manage']);
  caps.set(h.seed.ids.member, ['tickets.manage']);

  const outside = await run(ticketCommand(h.seed.ids.support, h.seed.ids.general, 'claim'));
  expect(outside).toEqual({ ephemeral: true, content: 'Use `/ticket` in a ticket thread.' });

  const noCap = await run(ticketCommand(h.seed.ids.moderator, thread, 'claim'));
  expect(noCap).toEqual({ ephemeral: true, content: 'You need the `tickets.manage` cap to claim tickets.' });
  const notStaff = await run(ticketCommand(h.seed.ids.member, thread, 'claim'));
  expect(notStaff.content).toMatch(/^Could not claim ticket #1: Only staff of Support tickets/);
  accessDown = true;
  const unchecked = await run(ticketCommand(h.seed.ids.support, thread, 'claim'));
  accessDown = false;
  expect(unchecked.content).toMatch(/could not be checked right now; try again/);
  expect(await ticket(1)).toMatchObject({ status: 'open', claimedBy: null });

  const claimed = await run(ticketCommand(h.seed.ids.support, thread, 'claim'));
  expect(claimed).toEqual({ ephemeral: true, content: 'You claimed ticket #1.' });
  expect(await ticket(1)).toMatchObject({ status: 'claimed', claimedBy: h.seed.ids.support });
  const twice = await run(ticketCommand(h.seed.ids.support, thread, 'claim'));
  expect(twice.content).toBe('Could not claim ticket #1: Ticket #1 is claimed; claim needs it to be open');

  const closed = await run(ticketCommand(h.seed.ids.support, thread, 'close', 'solved'));
  expect(closed.content).toBe('Ticket #1 closed.');
  expect(await ticket(1)).toMatchObject({ status: 'closed', closedBy: h.seed.ids.support, closeReason: 'solved' });
  expect(h.fake.guild(h.seed.id)?.channels.get(thread)).toMatchObject({
    thread_metadata: expect.objectContaining({ archived: true, locked: true }),
  });

  const reopened = await run(ticketCommand(h.seed.ids.support, thread, 'reopen'));
  expect(reopened.content).toBe('Ticket #1 reopened.');
  expect(await ticket(1)).toMatchObject({ status: 'open', closedBy: null });
  const kinds = h.events.filter((e) => e.type !== 'settings.updated').map((e) => e.type);
  expect(kinds).toEqual(['ticket.opened', 'ticket.claimed', 'ticket.closed', 'ticket.reopened']);
  h.fake.assertNoViolations();
});

it('handles a redelivered command once', async () => {
  const opened = await h.call('POST', base(), {
    body: { type: (await h.call('GET', `${base()}/settings`)).body.types[0].id, opener: h.seed.ids.member },
  });
  const command = ticketCommand(h.seed.ids.support, opened.body.thread, 'close');
  await run(command);
  await h.dispatch('INTERACTION_CREATE', command);
  await run(ticketCommand(h.seed.ids.support, h.seed.ids.general, 'close'));
  expect(
    h.fake
      .callsTo('POST', '/interactions/{interaction_id}/{interaction_token}/callback')
      .filter((c) => c.path.includes(command.id)),
  ).toHaveLength(1);
  expect(h.events.filter((e) => e.type === 'ticket.closed')).toHaveLength(2);
});
