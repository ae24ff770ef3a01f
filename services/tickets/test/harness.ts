import { newSnowflake } from '@guildhall/shared';
import { type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import { ChannelType, ComponentType, InteractionType } from 'discord-api-types/v10';
import type { TicketsConfig } from '../src/config';
import { definition } from '../src/service';

/** The tickets suites' harness (see `startServiceHarness`) plus an interaction builder. */
export interface Harness extends ServiceHarness<TicketsConfig, 'tickets'> {
  /** An INTERACTION_CREATE payload (`d`) of `user` pressing `customId` (type 3) or submitting a modal (type 5). */
  interaction(
    user: string,
    customId: string,
    opts?: { channel?: string; modal?: Record<string, string>; roles?: string[]; permissions?: string },
  ): any;
}

/**
 * Starts tickets with a 1 s peer timeout, community's `RPC.structure`, `RPC.access` and `RPC.hierarchy` answered from
 * the fake guild (`structure: false`: the suite answers them itself), calling as the sample guild's admin; `extraEnv`
 * overrides the service environment.
 */
export async function startHarness(extraEnv: Record<string, string> = {}, structure = true): Promise<Harness> {
  const h = await startServiceHarness(definition, {
    env: { PEER_TIMEOUT_MS: '1000', ...extraEnv },
    structure,
    caller: { as: 'admin' },
  });
  const interaction: Harness['interaction'] = (user, customId, opts = {}) => {
    const member = h.fake.guild(h.seed.id)?.members.get(user);
    const channel = opts.channel ?? h.seed.ids.general;
    const id = newSnowflake();
    return {
      id,
      application_id: h.fake.clientId,
      type: opts.modal ? InteractionType.ModalSubmit : InteractionType.MessageComponent,
      token: `token-${id}`,
      version: 1,
      guild_id: h.seed.id,
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
  };
  return Object.assign(h, { interaction });
}
