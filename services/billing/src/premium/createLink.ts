import { randomUUID } from 'node:crypto';
import { badRequest, conflict, type Identity, isDuplicateKey, type PremiumLink } from '@guildhall/shared';
import type { z } from 'zod';
import type { BillingContext } from '../config';
import { requeueUnmapped } from '../webhooks/requeueUnmapped';
import { LinkModel, type LinkRow } from './model';

function toLink(row: LinkRow): z.infer<typeof PremiumLink> {
  return {
    token: row._id,
    guild: row.guild,
    provider: row.provider,
    purchaseToken: row.purchaseToken,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Links a store purchase to `guild`. `ios-store`: a new token (uuid) for the app's `appAccountToken`.
 * `android-store`: registers `purchaseToken` (400 without; the same token again for the same guild returns the
 * existing link; 409 when linked to another guild). Notifications stored as `unmapped` for the token are queued
 * for processing again.
 */
export async function createLink(
  ctx: BillingContext,
  guild: string,
  provider: 'ios-store' | 'android-store',
  purchaseToken: string | null,
  identity: Identity,
): Promise<z.infer<typeof PremiumLink>> {
  if (provider === 'android-store' && !purchaseToken) {
    throw badRequest('purchaseToken is required for android-store', [
      { field: 'body.purchaseToken', message: 'required for android-store' },
    ]);
  }
  const token = provider === 'android-store' ? purchaseToken : null;
  if (token) {
    const existing = await LinkModel.findOne({ purchaseToken: token }).lean<LinkRow>();
    if (existing) {
      if (existing.guild !== guild) throw conflict('This purchase token is linked to another guild');
      return toLink(existing);
    }
  }
  const row: LinkRow = {
    _id: randomUUID(),
    guild,
    provider,
    purchaseToken: token,
    createdBy: identity.sub,
    createdAt: new Date(),
  };
  try {
    await LinkModel.create(row);
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const winner = await LinkModel.findOne({ purchaseToken: token }).lean<LinkRow>();
    if (!winner || winner.guild !== guild) throw conflict('This purchase token is linked to another guild');
    return toLink(winner);
  }
  await requeueUnmapped(ctx, token ?? row._id);
  return toLink(row);
}
