import { LinkModel } from '../premium/model';
import { providerGuild } from './providerGuild';

/**
 * The guild linked to an App Store appAccountToken (link `_id`) or a Play purchase token; null when unknown or when
 * the stored link's guild is not a canonical snowflake (`providerGuild`: a link stored before the API refused such ids).
 */
export async function findLinkedGuild(
  provider: 'ios-store' | 'android-store',
  key: string | null,
): Promise<string | null> {
  if (!key) return null;
  const filter = provider === 'ios-store' ? { _id: key, provider } : { purchaseToken: key, provider };
  const link = await LinkModel.findOne(filter).lean();
  return providerGuild(link?.guild);
}
