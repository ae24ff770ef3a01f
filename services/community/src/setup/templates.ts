import { ChannelType } from 'discord-api-types/v10';

/** A channel or role a template step needs. `type`: the platform channel type (channels only). */
export interface PlaceSpec {
  kind: 'channel' | 'role';
  name: string;
  type?: ChannelType.GuildText | ChannelType.GuildCategory | ChannelType.GuildForum;
  /** Forum tags created with a forum channel. */
  tags?: string[];
}

/** One step: a feature, the places it needs, whether its channels are staff-only (`gate`), and its preset. */
export interface StepSpec {
  feature: string;
  gate: boolean;
  preset: string;
  places: Record<string, PlaceSpec>;
}

/** A setup template. */
export interface TemplateSpec {
  key: string;
  name: string;
  description: string;
  steps: StepSpec[];
}

const TEXT = ChannelType.GuildText;
const CATEGORY = ChannelType.GuildCategory;
const FORUM = ChannelType.GuildForum;

/**
 * The setup templates. Feature names: `tickets`, `logs`, `moderation` and `premium` are answered by the tickets, logs,
 * moderation and billing services; `forums`, `staff` and `packs` by community. `preset` names the configuration the
 * feature's settings page offers first; `gate`: the step's channels are created visible to staff only.
 */
export const TEMPLATES: TemplateSpec[] = [
  {
    key: 'community',
    name: 'Community',
    description: 'A general community: message and moderation logs, a feedback forum, a moderator role, shared emoji.',
    steps: [
      {
        feature: 'logs',
        gate: true,
        preset: 'standard',
        places: {
          messages: { kind: 'channel', name: 'message-log', type: TEXT },
          moderation: { kind: 'channel', name: 'mod-log', type: TEXT },
        },
      },
      {
        feature: 'forums',
        gate: false,
        preset: 'feedback',
        places: {
          forum: {
            kind: 'channel',
            name: 'feedback',
            type: FORUM,
            tags: ['Suggestion', 'Planned', 'Done', 'Declined'],
          },
        },
      },
      {
        feature: 'staff',
        gate: false,
        preset: 'moderator',
        places: { moderators: { kind: 'role', name: 'Moderators' } },
      },
      { feature: 'packs', gate: false, preset: 'shared-emoji', places: {} },
    ],
  },
  {
    key: 'support',
    name: 'Support',
    description:
      'A product support server: private tickets, a help forum with answered/closed statuses, a support team role.',
    steps: [
      {
        feature: 'tickets',
        gate: true,
        preset: 'support',
        places: {
          category: { kind: 'channel', name: 'Tickets', type: CATEGORY },
          transcripts: { kind: 'channel', name: 'ticket-transcripts', type: TEXT },
        },
      },
      {
        feature: 'forums',
        gate: false,
        preset: 'help-desk',
        places: { forum: { kind: 'channel', name: 'help', type: FORUM, tags: ['Open', 'Answered', 'Closed'] } },
      },
      { feature: 'staff', gate: false, preset: 'support', places: { support: { kind: 'role', name: 'Support Team' } } },
      {
        feature: 'logs',
        gate: true,
        preset: 'moderation-only',
        places: { moderation: { kind: 'channel', name: 'mod-log', type: TEXT } },
      },
    ],
  },
  {
    key: 'gaming',
    name: 'Gaming',
    description:
      'A gaming community: strict moderation with a log, a looking-for-group forum, moderators, emoji packs.',
    steps: [
      {
        feature: 'moderation',
        gate: true,
        preset: 'strict',
        places: { log: { kind: 'channel', name: 'mod-log', type: TEXT } },
      },
      {
        feature: 'forums',
        gate: false,
        preset: 'lfg',
        places: { forum: { kind: 'channel', name: 'lfg', type: FORUM, tags: ['Looking', 'Full'] } },
      },
      {
        feature: 'staff',
        gate: false,
        preset: 'moderator',
        places: { moderators: { kind: 'role', name: 'Moderators' } },
      },
      { feature: 'packs', gate: false, preset: 'shared-emoji', places: {} },
    ],
  },
];

/** Which service answers for a feature. */
export const FEATURE_SERVICE: Record<string, 'tickets' | 'logs' | 'moderation' | 'billing' | 'community'> = {
  tickets: 'tickets',
  logs: 'logs',
  moderation: 'moderation',
  premium: 'billing',
  forums: 'community',
  staff: 'community',
  packs: 'community',
};
