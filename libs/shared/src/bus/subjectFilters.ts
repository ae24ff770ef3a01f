/** NATS subject filters of the bus's consumers: matching, one partition's filters, one filter covering several. */

/**
 * True when some subject matches both NATS filters (`*` one token, `>` one or more); for a plain subject `subject`
 * (no wildcard), true when the filter `filter` matches it.
 */
export function subjectMatches(filter: string, subject: string): boolean {
  return tokensMatch(filter.split('.'), subject.split('.'));
}

/**
 * `subjectMatches` against several filters, split once: `(subject) => true` when one of `filters` matches it (the
 * per-message check of a consumer whose server-side filter is wider than its filters).
 */
export function subjectMatcher(filters: string[]): (subject: string) => boolean {
  const split = filters.map((f) => f.split('.'));
  return (subject) => {
    const s = subject.split('.');
    return split.some((f) => tokensMatch(f, s));
  };
}

function tokensMatch(f: string[], s: string[]): boolean {
  for (let i = 0; ; i++) {
    if (i === f.length || i === s.length) return f.length === s.length;
    if (f[i] === '>' || s[i] === '>') return true;
    if (f[i] !== '*' && s[i] !== '*' && f[i] !== s[i]) return false;
  }
}

/**
 * The filters of partition `p`: the partition token (the third: `platform.dispatch.<partition>.<group>.<EVENT>`,
 * `events.<service>.<partition>.<guild>.<type>`; `*` or `>` in a consumer's filters) set to `p`.
 */
export function partitionFilters(filters: string[], p: number): string[] {
  return filters.map((f) => {
    const tokens = f.split('.');
    if (tokens[2] === '*') tokens[2] = String(p);
    else if (tokens[2] === '>' && tokens.length === 3) tokens.splice(2, 1, String(p), '>');
    else throw new Error(`consumer filter ${f} does not leave the partition (third token) open`);
    return tokens.join('.');
  });
}

/** The narrowest single NATS filter matching every subject the filters `filters` match, e.g. `a.3.X` + `a.3.Y` -> `a.3.*`. */
export function coverFilter(filters: string[]): string {
  const split = filters.map((f) => f.split('.'));
  const shortest = Math.min(...split.map((t) => t.length));
  const sameLength = split.every((t) => t.length === shortest);
  const out: string[] = [];
  for (let i = 0; i < shortest; i++) {
    const tokens = new Set(split.map((t) => t[i]));
    if (tokens.has('>') || (!sameLength && i === shortest - 1)) return [...out, '>'].join('.');
    out.push(tokens.size === 1 ? (split[0]?.[i] as string) : '*');
  }
  return out.join('.');
}
