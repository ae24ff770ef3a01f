import {
  CAPS,
  createLogger,
  EventBus,
  RPC,
  type RunningService,
  type ServiceEvent,
  type StructureReply,
  startService,
} from '@guildhall/shared';
import {
  deleteNamespace,
  type FakePlatform,
  identityHeaders,
  sampleGuild,
  snowflake,
  startFakePlatform,
  stopTestMongo,
  testNatsUrl,
  testServiceEnv,
  userIdentity,
} from '@guildhall/shared/testing';
import { ChannelType, ComponentType, InteractionType } from 'discord-api-types/v10';
import { definition } from '../src/service';

const KINDS: Partial<Record<ChannelType, StructureReply['channels'][number]['kind']>> = {
  [ChannelType.GuildText]: 'text',
  [ChannelType.GuildVoice]: 'voice',
  [ChannelType.GuildCategory]: 'category',
  [ChannelType.GuildAnnouncement]: 'announcement',
  [ChannelType.GuildStageVoice]: 'stage',
  [ChannelType.GuildForum]: 'forum',
  [ChannelType.GuildMedia]: 'media',
};

/** Test kit of the tickets suites: fake platform + sample guild, the service, a peer bus, events, helpers. */
export interface Harness {
  fake: FakePlatform;
  seed: ReturnType<typeof sampleGuild>;
  env: Record<string, string>;
  service: RunningService;
  peer: EventBus;
  /** Every tickets event received so far, in order. */
  events: ServiceEvent[];
  call(method: string, path: string, opts?: CallOptions): Promise<{ status: number; body: any }>;
  waitFor<T>(
    probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    what: string,
    timeoutMs?: number,
  ): Promise<T>;
  /** Publishes a platform dispatch on NATS exactly as the bridge does. */
  dispatch(t: string, d: unknown): Promise<void>;
  /** An INTERACTION_CREATE payload (`d`) of `user` pressing `customId` (type 3) or submitting a modal (type 5). */
  interaction(
    user: string,
    customId: string,
    opts?: { channel?: string; modal?: Record<string, string>; roles?: string[]; permissions?: string },
  ): any;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  as?: string;
  name?: string;
  caps?: string[];
}

/** Starts the fake platform, the tickets service, a structure responder built from the seeded guild, and a peer bus. */
export async function startHarness(extraEnv: Record<string, string> = {}): Promise<Harness> {
  const fake = await startFakePlatform();
  const seed = sampleGuild();
  fake.seedGuild(seed);
  const env = await testServiceEnv('tickets', { PLATFORM_API_URL: fake.url, PEER_TIMEOUT_MS: '1000', ...extraEnv });
  const peer = await EventBus.connect({
    url: testNatsUrl(),
    name: 'tickets-test-peer',
    namespace: env.NATS_NAMESPACE,
    logger: createLogger('tickets-test', 'silent'),
  });
  peer.reply<{ guild: string }, StructureReply>(RPC.structure, async ({ guild }) => {
    const state = fake.guild(guild);
    if (!state) throw new Error(`unknown guild ${guild}`);
    return {
      roles: [...state.roles.values()].map((r) => ({
        id: r.id,
        name: r.name,
        color: r.color,
        position: r.position,
        managed: r.managed,
        permissions: [],
      })),
      channels: [...state.channels.values()].map((c) => ({
        id: c.id,
        name: c.name ?? '',
        kind: KINDS[c.type] ?? 'thread',
        parent: c.parent_id ?? null,
        position: c.position ?? 0,
        tags: [],
      })),
      botTop: 3,
    };
  });
  const service = await startService(definition, env);
  const events: ServiceEvent[] = [];
  await peer.consume<ServiceEvent>(
    { stream: 'EVENTS', durable: 'test-tickets-events', filterSubjects: ['events.tickets.>'] },
    async (msg) => {
      if (!events.some((e) => e.id === msg.data.id)) events.push(msg.data);
    },
  );
  const h: Harness = {
    fake,
    seed,
    env,
    service,
    peer,
    events,
    async call(method, path, opts = {}) {
      const as = opts.as ?? seed.ids.admin;
      const identity = userIdentity(as, seed.id, opts.caps ?? [...CAPS], opts.name ?? `user${as.slice(-4)}`);
      const res = await fetch(`${h.service.url}${path}`, {
        method,
        headers: {
          ...(await identityHeaders(identity)),
          ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async waitFor(probe, what, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (value !== undefined && value !== null && value !== false) return value as never;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async dispatch(t, d) {
      await peer.publish(`platform.dispatch.${t}`, { t, s: 1, op: 0, d }, snowflake());
    },
    interaction(user, customId, opts = {}) {
      const member = fake.guild(seed.id)?.members.get(user);
      const channel = opts.channel ?? seed.ids.general;
      const id = snowflake();
      return {
        id,
        application_id: fake.clientId,
        type: opts.modal ? InteractionType.ModalSubmit : InteractionType.MessageComponent,
        token: `token-${id}`,
        version: 1,
        guild_id: seed.id,
        channel_id: channel,
        channel: { id: channel, type: ChannelType.GuildText },
        app_permissions: '0',
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: {},
        context: 0,
        member: {
          user: member?.user ?? {
            id: user,
            username: `user${user.slice(-4)}`,
            discriminator: '0',
            global_name: null,
            avatar: null,
          },
          roles: opts.roles ?? member?.roles ?? [],
          permissions: opts.permissions ?? '0',
          nick: null,
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
        data: opts.modal
          ? {
              custom_id: customId,
              components: Object.entries(opts.modal).map(([inputId, value]) => ({
                type: ComponentType.ActionRow,
                components: [{ type: ComponentType.TextInput, custom_id: inputId, value }],
              })),
            }
          : { custom_id: customId, component_type: ComponentType.Button },
      };
    },
    async restart() {
      await h.service.stop();
      h.service = await startService(definition, env);
    },
    async close() {
      await h.service.stop();
      await peer.close();
      await fake.close();
      await deleteNamespace(env.NATS_NAMESPACE);
      await stopTestMongo();
    },
  };
  return h;
}
