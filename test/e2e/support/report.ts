import type { FakePlatform } from '@guildhall/platform-simulator';
import { waitFor } from '@guildhall/testkit';

/**
 * `reporter` reports message `message` of `channel` as a member does (issue 30): runs the registered "Report message"
 * command on it, waits for the modal the service answers with (`mod:report:<channel>:<message>`) and submits it with
 * `reason`. Resolves the submission's interaction id once it was sent to the bot; the report is filed asynchronously.
 */
export async function reportThroughModal(
  fake: FakePlatform,
  guild: string,
  reporter: string,
  channel: string,
  message: string,
  reason: string,
): Promise<string> {
  const member = fake.actAsUser(reporter);
  await waitFor(
    () => member.runCommand(guild, channel, 'Report message', { targetId: message }),
    () => true,
    20_000,
  );
  return waitFor(
    () => member.submitModal(`mod:report:${channel}:${message}`, { reason }),
    () => true,
    20_000,
  );
}
