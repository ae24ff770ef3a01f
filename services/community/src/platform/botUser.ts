import { type REST, Routes } from '@guildhall/shared';
import type { APIUser } from 'discord-api-types/v10';

const cache = new WeakMap<REST, Promise<string>>();

/**
 * The bot's own platform user id (`GET /users/@me`), fetched once per platform client. A failed fetch is not kept,
 * so the next call tries again.
 */
export function botUserId(platform: REST): Promise<string> {
  let id = cache.get(platform);
  if (!id) {
    id = (platform.get(Routes.user('@me')) as Promise<APIUser>).then((u) => u.id);
    id.catch(() => cache.delete(platform));
    cache.set(platform, id);
  }
  return id;
}
