import { z } from 'zod';
import { CapSchema } from './caps';
import { Snowflake } from './common';

/** The signed-in user as the session keeps it and `GET /auth/me` answers it. */
export const SessionUser = z
  .strictObject({
    id: Snowflake,
    username: z.string(),
    name: z.string().meta({ description: 'Display name (global name, else username)' }),
    avatar: z.string().nullable().meta({ description: "The platform's avatar hash, null for the default avatar" }),
  })
  .meta({ id: 'SessionUser' });

/** A guild of the user as the platform listed it at login (kept in the session). */
export const SessionGuild = z.strictObject({
  id: Snowflake,
  name: z.string(),
  icon: z.string().nullable(),
  owner: z.boolean(),
  permissions: z.string().meta({ description: "The user's platform permission bit set (decimal string)" }),
});

/** A guild of `GET /auth/me`: the platform's data at login plus, from community, the bot's presence and the caps. */
export const DashboardGuild = SessionGuild.extend({
  bot: z.boolean().nullable().meta({ description: 'The bot is in the guild; null when community did not answer' }),
  caps: z.array(CapSchema).meta({
    description: "The user's effective caps there (all for owner, Administrator, Manage Server; [] when unknown)",
  }),
  iconUrl: z
    .string()
    .nullable()
    .meta({ description: "The guild's icon on the platform CDN (64 px PNG), null without one" }),
  invite: z
    .string()
    .nullable()
    .meta({
      description:
        "Link adding the bot to this guild (the platform's authorize page, scope `bot applications.commands`) for " +
        'managers of guilds without the bot, else null',
    }),
}).meta({ id: 'SessionGuild' });

/** Body of `GET /auth/me`: the signed-in user, the guilds the dashboard lists, when the session ends, the CDN URL. */
export const AuthMe = z
  .strictObject({
    user: SessionUser,
    guilds: z.array(DashboardGuild).meta({
      description:
        'Guilds the user owns or holds Administrator / Manage Server in (platform data at login, cached in the ' +
        'session), and guilds where a staff role gives them caps (community, asked now); each says whether the bot ' +
        'is there and carries an invite link when it is not',
    }),
    expiresAt: z.iso.datetime({ offset: true }),
    cdnUrl: z.string().meta({
      description:
        "The platform CDN's base URL (`PLATFORM_CDN_URL`; the dashboard's CSP allows its images): custom emoji are " +
        '`<cdnUrl>/emojis/<id>.png` (`.gif` animated)',
    }),
  })
  .meta({ id: 'AuthMe' });
