import { parseArgs } from 'node:util';
import { Snowflake } from '@guildhall/shared';
import mongoose from 'mongoose';
import { z } from 'zod';
import { createSession, SESSION_COOKIE } from '../auth/session';

const Args = z.object({
  user: z.string().refine((v) => Snowflake.safeParse(v).success, '--user must be a platform user id (a snowflake)'),
  name: z.string().min(1).max(100).optional(),
  'ttl-hours': z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
});
const Env = z.object({
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'MONGO_URL must be a mongodb:// URL (the gateway database server)'),
  MONGO_DB: z.string().min(1, 'MONGO_DB must name the gateway database'),
  GATEWAY_URL: z.string().default(`http://127.0.0.1:${process.env.PORT ?? '3000'}`),
});

/**
 * Operator command (local use): creates a gateway session for a platform user id without the OAuth2 login and
 * prints the `service_session` cookie value and a curl example.
 * Usage: `node dist/cli/createSession.js --user ID [--name NAME] [--ttl-hours H]` (default 24 h).
 * Reads `MONGO_URL` and `MONGO_DB` (the gateway's database) and `GATEWAY_URL` (for the example) from the
 * environment. Exits 2 on bad arguments or environment, 1 when the database is unreachable.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let args: z.infer<typeof Args>;
  let config: z.infer<typeof Env>;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { user: { type: 'string' }, name: { type: 'string' }, 'ttl-hours': { type: 'string' } },
      strict: true,
    });
    args = Args.parse(values);
    config = Env.parse(env);
  } catch (err) {
    const message = err instanceof z.ZodError ? err.issues.map((i) => i.message).join('; ') : (err as Error).message;
    process.stderr.write(`${message}\nusage: createSession --user ID [--name NAME] [--ttl-hours H]\n`);
    return 2;
  }
  try {
    await mongoose.connect(config.MONGO_URL, { dbName: config.MONGO_DB, serverSelectionTimeoutMS: 10_000 });
    const name = args.name ?? `user${args.user.slice(-4)}`;
    const session = await createSession({
      user: { id: args.user, username: name, name, avatar: null },
      ttlMs: args['ttl-hours'] * 3_600_000,
      source: 'operator',
    });
    process.stdout.write(
      `${SESSION_COOKIE}=${session.id}\n` +
        `expires: ${session.expiresAt.toISOString()}\n\n` +
        `curl -H 'Cookie: ${SESSION_COOKIE}=${session.id}' ${config.GATEWAY_URL}/auth/me\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(`could not create the session: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await mongoose.disconnect();
  }
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then((code) => process.exit(code));
}
