import type { PlatformApi } from '@guildhall/shared';

const cache = new WeakMap<PlatformApi, Promise<string>>();

/**
 * The bot's own platform user id (`GET /users/@me`), fetched once per platform client. A failed fetch is not kept,
 * so the next call tries again.
 */
export function botUserId(platform: PlatformApi): Promise<string> {
  let id = cache.get(platform);
  if (!id) {
    id = platform.users.getCurrent().then((u) => u.id);
    id.catch(() => cache.delete(platform));
    cache.set(platform, id);
  }
  return id;
}
