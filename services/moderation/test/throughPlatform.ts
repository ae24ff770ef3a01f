import { API } from '@discordjs/core';
import { REST } from '@discordjs/rest';
import { APPLICATION_COMMANDS } from '@guildhall/shared';
import type { Harness } from './harness';

/** An INTERACTION_CREATE the platform sent (its id and token; any other field as sent). */
export type SentInteraction = { id: string; token: string } & Record<string, unknown>;

/** Commands and button presses made through the harness's fake platform (see `throughPlatform`). */
export interface PlatformMember {
  /** `user` runs chat input command `name` in #general (`subcommand`: `"sub"`); resolves what the service got. */
  run(
    user: string,
    name: string,
    options: Record<string, string | number>,
    subcommand?: string,
  ): Promise<SentInteraction>;
  /**
   * `user` presses button `customId` of the answer to interaction `of` (an ephemeral answer only its runner sees and
   * can press: anyone else is refused with 10008, a button no longer on it with 50035); resolves the press.
   */
  press(user: string, of: { id: string }, customId: string): Promise<SentInteraction>;
  /** Stops relaying the platform's interactions. */
  stop(): void;
}

/**
 * Makes members act through the simulator as on the platform (issue 30): registers the application's commands
 * (`APPLICATION_COMMANDS`) for the fake's application, and relays every INTERACTION_CREATE the platform sends to the
 * service's bus in order, as the bridge does. The service's answers become the platform's messages (ephemeral ones
 * shown to the runner only), whose buttons `press` uses.
 */
export async function throughPlatform(h: Harness): Promise<PlatformMember> {
  const api = new API(new REST({ api: h.fake.url, version: '10', retries: 0 }).setToken('test-token'));
  await api.applicationCommands.bulkOverwriteGlobalCommands(h.fake.clientId, APPLICATION_COMMANDS);
  const sent = new Map<string, SentInteraction>();
  let relayed: Promise<void> = Promise.resolve();
  const stop = h.fake.onDispatch((_guild, t, d) => {
    if (t !== 'INTERACTION_CREATE') return;
    const interaction = d as SentInteraction;
    sent.set(interaction.id, interaction);
    relayed = relayed.then(() => h.dispatch(t, d));
  });
  const relayedOf = async (id: string) => {
    await relayed;
    return sent.get(id)!;
  };
  return {
    run: async (user, name, options, subcommand) =>
      relayedOf(await h.fake.actAsUser(user).runCommand(h.seed.id, h.seed.ids.general, name, { options, subcommand })),
    press: async (user, of, customId) => {
      const answer = h.fake.interactionResponse(of.id);
      if (!answer) throw new Error(`interaction ${of.id} has no answer to press`);
      return relayedOf(await h.fake.actAsUser(user).useComponent(h.seed.ids.general, answer.id, customId));
    },
    stop,
  };
}
