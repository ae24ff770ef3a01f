/** Nested `errors` object of a Discord 50035 response: field path → `{ _errors: [{ code, message }] }`. */
export interface DiscordFieldErrors {
  [field: string]: DiscordFieldErrors | Array<{ code: string; message: string }>;
}

/** A Discord error answer: HTTP status plus Discord's JSON error body `{ message, code, errors? }`. */
export class DiscordError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: DiscordFieldErrors,
  ) {
    super(message);
  }

  /** The JSON body Discord sends for this error. */
  toJSON(): { message: string; code: number; errors?: DiscordFieldErrors } {
    return this.errors
      ? { message: this.message, code: this.code, errors: this.errors }
      : { message: this.message, code: this.code };
  }
}

const unknown = (code: number, what: string) => () => new DiscordError(404, code, `Unknown ${what}`);

/** Factories for the Discord JSON errors the fake answers (codes from Discord's JSON error code table). */
export const errors = {
  unauthorized: () => new DiscordError(401, 0, '401: Unauthorized'),
  notFound: () => new DiscordError(404, 0, '404: Not Found'),
  methodNotAllowed: () => new DiscordError(405, 0, '405: Method Not Allowed'),
  unknownChannel: unknown(10003, 'Channel'),
  unknownGuild: unknown(10004, 'Guild'),
  unknownMember: unknown(10007, 'Member'),
  unknownMessage: unknown(10008, 'Message'),
  unknownRole: unknown(10011, 'Role'),
  unknownUser: unknown(10013, 'User'),
  unknownEmoji: unknown(10014, 'Emoji'),
  unknownWebhook: unknown(10015, 'Webhook'),
  unknownBan: unknown(10026, 'Ban'),
  unknownSticker: unknown(10060, 'Sticker'),
  invalidWebhookToken: () => new DiscordError(401, 50027, 'Invalid Webhook Token'),
  missingPermissions: () => new DiscordError(403, 50013, 'Missing Permissions'),
  missingAccess: () => new DiscordError(403, 50001, 'Missing Access'),
  emptyMessage: () => new DiscordError(400, 50006, 'Cannot send an empty message'),
  invalidJson: () => new DiscordError(400, 50109, 'The request body contains invalid JSON.'),
  wrongChannelType: () => new DiscordError(400, 50024, 'Cannot execute action on this channel type'),
  threadArchived: () => new DiscordError(400, 50083, 'Thread is archived'),
  interactionAcknowledged: () => new DiscordError(400, 40060, 'Interaction has already been acknowledged.'),
  /** 400 code 50035 "Invalid Form Body" with one field error at a dotted path (e.g. `message.content`). */
  invalidField: (path: string, code: string, message: string) => invalidFormBody([{ path, code, message }]),
};

/** Builds a 50035 "Invalid Form Body" error from field problems at dotted paths (`a.0.b`). */
export function invalidFormBody(problems: Array<{ path: string; code: string; message: string }>): DiscordError {
  const root: DiscordFieldErrors = {};
  for (const { path, code, message } of problems) {
    let node = root;
    for (const key of path.split('.').filter(Boolean)) {
      node[key] ??= {};
      node = node[key] as DiscordFieldErrors;
    }
    const existing = (node._errors as Array<{ code: string; message: string }> | undefined) ?? [];
    node._errors = [...existing, { code, message }];
  }
  return new DiscordError(400, 50035, 'Invalid Form Body', root);
}
