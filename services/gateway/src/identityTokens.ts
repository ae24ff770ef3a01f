import { type Identity, identityKey, signIdentity } from '@guildhall/shared';
import { LRUCache, type Perf } from 'lru-cache';

/** Lifetime of an identity token the gateway signs, in seconds. */
export const IDENTITY_TOKEN_TTL_S = 60;
/** How long the gateway hands out the same token for the same caller, in ms: every token sent has >= 30 s left. */
export const IDENTITY_TOKEN_REUSE_MS = 30_000;
const MAX_TOKENS = 10_000;

/**
 * The identity tokens the gateway sends to services (`x-guildhall-identity`). A token is signed for
 * `IDENTITY_TOKEN_TTL_S` and handed out again for every request of the same identity (`identityKey`: caller, guild and
 * caps; a change of any of them is another token) during `IDENTITY_TOKEN_REUSE_MS`, so each request carries a token
 * with at least 30 s of validity left while the gateway signs, and each service verifies (see `verifyIdentity`), once
 * per caller every 30 s instead of once per request. lru-cache, at most 10,000 callers per process; `clock` measures
 * the reuse window (`performance` by default). Concurrent first requests share one signing; a failed one is not kept.
 */
export class IdentityTokens {
  private readonly tokens: LRUCache<string, Promise<string>>;

  constructor(
    private readonly secret: string,
    clock: Perf = performance,
  ) {
    this.tokens = new LRUCache<string, Promise<string>>({
      max: MAX_TOKENS,
      ttl: IDENTITY_TOKEN_REUSE_MS,
      ttlResolution: 0,
      perf: clock,
    });
  }

  /** A signed token for `identity`, reused from an earlier request of the same identity when still fresh. */
  token(identity: Identity): Promise<string> {
    const key = identityKey(identity);
    const known = this.tokens.get(key);
    if (known) return known;
    const signed = signIdentity(identity, this.secret, IDENTITY_TOKEN_TTL_S);
    this.tokens.set(key, signed);
    signed.catch(() => {
      if (this.tokens.peek(key) === signed) this.tokens.delete(key);
    });
    return signed;
  }
}
