import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { type System, waitFor } from '@guildhall/testkit';

const CALLBACK = '/interactions/{interaction_id}/{interaction_token}/callback';
const ORIGINAL = '/webhooks/{webhook_id}/{webhook_token}/messages/@original';
const { roles, channels } = FIXTURE_IDS;

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer shapes
type Json = any;

/**
 * Members of the system's guild running the application's commands in #general through the simulator, and what the
 * bot answered them, read from the simulator's call log (issue 30's e2e suites).
 */
export function commandsOf(sys: System) {
  const g = sys.guild;
  /** The callbacks answering interaction `id`. */
  const callbacksOf = (id: string) =>
    sys.fake.callsTo('POST', CALLBACK).filter((c) => c.path.includes(`/interactions/${id}/`));
  /** The edits of interaction `id`'s original answer (by the token of its callback). */
  const editsOf = (id: string) => {
    const token = callbacksOf(id)[0]!.path.split('/')[3]!;
    return sys.fake.callsTo('PATCH', ORIGINAL).filter((c) => c.path.includes(token));
  };
  return {
    callbacksOf,
    editsOf,
    /**
     * The text of interaction `id`'s answer once it was answered by exactly one callback (the ephemeral deferral) and
     * that answer edited, each waited for at most `timeoutMs`.
     */
    async answerOf(id: string, timeoutMs = 10_000): Promise<{ content: string; components?: Json[] }> {
      await waitFor(() => callbacksOf(id).length === 1, Boolean, timeoutMs);
      await waitFor(() => editsOf(id).length >= 1, Boolean, timeoutMs);
      return editsOf(id)[0]!.body as { content: string };
    },
    /** `user` runs chat input command `name` (with `subcommand`) in #general; resolves the interaction id. */
    run(user: string, name: string, options: Record<string, string | number>, subcommand?: string): Promise<string> {
      return sys.fake.actAsUser(user).runCommand(g, channels.general, name, { options, subcommand });
    },
    /**
     * `user` presses button `customId` of interaction `of`'s answer (an ephemeral message only the command's runner
     * sees) through the platform; resolves the press's interaction id.
     */
    press(user: string, of: string, customId: string): Promise<string> {
      const answer = sys.fake.interactionResponse(of);
      if (!answer) throw new Error(`interaction ${of} has no answer to press`);
      return sys.fake.actAsUser(user).useComponent(channels.general, answer.id, customId);
    },
    /** Fixture members whose only role is Members and who are not timed out (targets and reporters of the tests). */
    plainMembers(): string[] {
      return [...sys.fake.guild(g)!.members.values()]
        .filter(
          (m) => !m.user.bot && m.roles.length === 1 && m.roles[0] === roles.member && !m.communication_disabled_until,
        )
        .map((m) => m.user.id);
    },
    /** Resolves once the bridge registered the application's commands (the first successful bulk overwrite). */
    registered(): Promise<unknown> {
      return waitFor(() =>
        sys.fake.callsTo('PUT', '/applications/{application_id}/commands').some((c) => c.status < 300),
      );
    },
  };
}
