import { askRpc, type FeatureEntry, rpcSpecs, type SetupTemplate } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { communityFeatures } from './communityFeatures';
import { matchPlace } from './matchPlace';
import { FeatureSnapshotModel } from './model';
import { FEATURE_SERVICE, TEMPLATES } from './templates';

type Feature = z.infer<typeof FeatureEntry>;
const PEERS = ['tickets', 'logs', 'moderation', 'billing'] as const;

/** The same features in the same order with the same states and notes. */
function sameFeatures(a: Feature[], b: Feature[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * `service`'s features of `guild` (RPC.features, PEER_TIMEOUT_MS). The answer is kept in `feature_snapshots` only when
 * it differs from the kept one, i.e. when the peer's state changed (a read of an unchanged state writes nothing);
 * `at` is when that state was first answered. A peer that does not answer: its kept features with a note saying so,
 * or its template features `off` when it never answered for this guild.
 */
async function peerFeatures(ctx: CommunityContext, guild: string, service: (typeof PEERS)[number]): Promise<Feature[]> {
  const id = `${guild}:${service}`;
  let features: Feature[];
  try {
    ({ features } = await askRpc(ctx.bus, rpcSpecs.features(service), { guild }, ctx.config.PEER_TIMEOUT_MS));
  } catch (err) {
    ctx.logger.warn({ err, service, guild }, 'a peer did not answer its setup features');
    const last = await FeatureSnapshotModel.findById(id).lean();
    const note = `The ${service} service did not answer`;
    if (last)
      return last.features.map((f) => ({
        ...f,
        note: `${note}; state as of ${new Date(last.at).toISOString()}${f.note ? ` (${f.note})` : ''}`,
      }));
    return Object.entries(FEATURE_SERVICE)
      .filter(([, svc]) => svc === service)
      .map(([feature]) => ({ feature, state: 'off' as const, note: `${note}; state unknown` }));
  }
  const last = await FeatureSnapshotModel.findById(id).lean();
  if (!last || !sameFeatures(last.features, features))
    await FeatureSnapshotModel.replaceOne({ _id: id }, { _id: id, features, at: new Date() }, { upsert: true });
  return features;
}

/**
 * GET /setup: the templates, each place resolved to the guild's existing channel/role of that name (`id` empty when
 * the template would create it), and every feature's state: community's own computed locally, the others asked of
 * the tickets, logs, moderation and billing services in parallel (RPC.features, PEER_TIMEOUT_MS each). A peer that
 * does not answer: its last answered features with a note saying it did not answer, or its features `off` when it
 * never answered for this guild. Writes only when a peer's features changed since they were last kept
 * (`peerFeatures`); the structure is fetched and stored only when community has none (`loadStructure`).
 */
export async function getSetup(
  ctx: CommunityContext,
  guild: string,
): Promise<{ templates: z.infer<typeof SetupTemplate>[]; features: Feature[] }> {
  const structure = await loadStructure(ctx, guild);
  const [own, ...peers] = await Promise.all([
    communityFeatures(ctx, guild),
    ...PEERS.map((service) => peerFeatures(ctx, guild, service)),
  ]);
  const templates = TEMPLATES.map((t) => ({
    key: t.key,
    name: t.name,
    description: t.description,
    steps: t.steps.map((s) => ({
      feature: s.feature,
      input: {
        places: Object.fromEntries(
          Object.entries(s.places).map(([key, place]) => [
            key,
            matchPlace(structure, place) ?? { id: '', name: place.name },
          ]),
        ),
        gate: s.gate,
        preset: s.preset,
      },
    })),
  }));
  return { templates, features: [...peers.flat(), ...(own ?? [])] };
}
