import { MongoCommandError } from '../errors';
import { type Doc, getPath } from '../values';
import type { IdCursor } from './idCursor';
import type { IndexSpec, ScanStats } from './indexes';
import { encodeKeys, ridOf } from './keyString';
import { ListCursor, SortedList } from './sortedList';

const WORD = /[\p{L}\p{N}]+/gu;

/** Splits text into words on every character that is not a letter or digit. Case is kept. */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** A parsed `$text.$search` string. Terms are lowercased unless the search is case sensitive. */
export interface TextSearch {
  terms: string[];
  negated: string[];
  phrases: string[];
  negatedPhrases: string[];
  caseSensitive: boolean;
}

/**
 * Parses a `$search` string as MongoDB does: words are OR-ed, `"a phrase"` must appear, `-word` / `-"phrase"` must not.
 * The words of required phrases also count as search terms.
 */
export function parseSearch(search: string, caseSensitive: boolean): TextSearch {
  const norm = (w: string) => (caseSensitive ? w : w.toLowerCase());
  const out: TextSearch = { terms: [], negated: [], phrases: [], negatedPhrases: [], caseSensitive };
  const rest = search.replace(/(-?)"([^"]*)"?/g, (_m, neg: string, phrase: string) => {
    if (phrase.trim()) (neg ? out.negatedPhrases : out.phrases).push(norm(phrase));
    if (!neg) out.terms.push(...words(phrase).map(norm));
    return ' ';
  });
  for (const chunk of rest.split(/\s+/)) {
    if (!chunk) continue;
    if (chunk.startsWith('-')) out.negated.push(...words(chunk.slice(1)).map(norm));
    else out.terms.push(...words(chunk).map(norm));
  }
  out.terms = [...new Set(out.terms)];
  return out;
}

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/**
 * A text index: an inverted index from lowercased word to a posting list of the documents containing it, each
 * posting list sorted by the equality prefix fields of the index and then `_id`, so a search restricted to one prefix
 * value can walk postings in `_id` order (either direction) and stop early.
 */
export class TextIndex {
  readonly prefixFields: string[];
  readonly weights: Record<string, number>;
  /** Word -> posting list of entries: the encoded prefix values and `_id` (ascending) plus the record id. */
  private readonly postings = new Map<string, SortedList>();

  constructor(readonly spec: IndexSpec) {
    const keys = Object.keys(spec.key);
    const firstText = keys.findIndex((k) => spec.key[k] === 'text' || k === '_fts');
    this.prefixFields = keys.slice(0, firstText);
    const weights: Record<string, number> = {};
    for (const k of keys) if (spec.key[k] === 'text') weights[k] = 1;
    for (const [k, w] of Object.entries(spec.weights ?? {})) weights[k] = Number(w);
    this.weights = weights;
  }

  /** The index as `listIndexes` reports it: key `{prefix..., _fts: 'text', _ftsx: 1, suffix...}` plus weights. */
  describe(): Doc {
    const key: Doc = {};
    let placed = false;
    for (const [k, v] of Object.entries(this.spec.key)) {
      if (v === 'text' || k === '_fts' || k === '_ftsx') {
        if (!placed) Object.assign(key, { _fts: 'text', _ftsx: 1 });
        placed = true;
      } else key[k] = v;
    }
    return {
      key,
      name: this.spec.name,
      ...(this.spec.sparse !== undefined ? { sparse: this.spec.sparse } : {}),
      ...(this.spec.partialFilterExpression ? { partialFilterExpression: this.spec.partialFilterExpression } : {}),
      weights: this.weights,
      default_language: this.spec.default_language ?? 'english',
      language_override: this.spec.language_override ?? 'language',
      textIndexVersion: 3,
    };
  }

  private tokens(doc: Doc): Set<string> {
    const out = new Set<string>();
    for (const f of Object.keys(this.weights)) {
      for (const s of strings(getPath(doc, f))) for (const w of words(s)) out.add(w.toLowerCase());
    }
    return out;
  }

  /** Encodes prefix values (and `_id`), all ascending; with `rid`: a posting entry. */
  private encode(values: unknown[], rid?: number): string {
    return encodeKeys(
      values,
      values.map(() => 1),
      rid,
    );
  }

  /** The prefix values of a document; throws when one is an array (MongoDB refuses those too). */
  private prefixOf(doc: Doc): unknown[] {
    const prefix = this.prefixFields.map((f) => getPath(doc, f));
    if (prefix.some(Array.isArray)) {
      throw new MongoCommandError('CannotCreateIndex', `text index prefix fields cannot be arrays: ${this.spec.name}`);
    }
    return prefix;
  }

  /** Throws what {@link add} would for `doc`, before anything is stored. */
  check(doc: Doc): void {
    this.prefixOf(doc);
  }

  /** Adds a document's words (record id `rid`). Throws as {@link check}. */
  add(doc: Doc, rid: number): void {
    const entry = this.encode([...this.prefixOf(doc), doc._id], rid);
    for (const t of this.tokens(doc)) {
      let list = this.postings.get(t);
      if (!list) {
        list = new SortedList();
        this.postings.set(t, list);
      }
      list.insert(entry);
    }
  }

  /** Removes a stored document's words. */
  remove(doc: Doc, rid: number): void {
    const entry = this.encode([...this.prefixFields.map((f) => getPath(doc, f)), doc._id], rid);
    for (const t of this.tokens(doc)) {
      const list = this.postings.get(t);
      if (!list) continue;
      list.remove(entry);
      if (!list.size) this.postings.delete(t);
    }
  }

  /**
   * The words whose postings hold every possible match of `search`: its terms, or, when it requires phrases, the
   * one phrase word with the fewest postings (a document containing a phrase contains each of its words). So a
   * phrase of common words walks one short list instead of the union of long ones. Empty when a phrase word is in
   * no document (nothing can match).
   */
  candidateTerms(search: TextSearch): string[] {
    let best: string | undefined;
    let bestSize = Number.POSITIVE_INFINITY;
    for (const phrase of search.phrases) {
      for (const w of words(phrase)) {
        const word = w.toLowerCase();
        const size = this.postings.get(word)?.size ?? 0;
        if (size < bestSize) {
          best = word;
          bestSize = size;
        }
      }
    }
    if (best === undefined) return search.terms;
    return bestSize === 0 ? [] : [best];
  }

  /**
   * The documents containing any of `terms` with the given prefix values, in `_id` order (descending when `reverse`),
   * each once. Lazy: costs only as far as the caller moves it. Entries of one prefix differ only in their encoded
   * `_id` (and the record id after it), so they merge by plain string comparison.
   */
  cursor(prefix: unknown[], terms: string[], reverse: boolean, stats: ScanStats): IdCursor {
    const lists: SortedList[] = [];
    for (const t of new Set(terms.map((x) => x.toLowerCase()))) {
      const list = this.postings.get(t);
      if (list) lists.push(list);
    }
    return new PostingsCursor(lists, this.encode(prefix), reverse, stats);
  }

  /** Whether a candidate document satisfies the phrase, negation and case-sensitivity parts of a search. */
  matches(doc: Doc, search: TextSearch): boolean {
    const texts: string[] = [];
    for (const f of Object.keys(this.weights)) texts.push(...strings(getPath(doc, f)));
    const norm = (s: string) => (search.caseSensitive ? s : s.toLowerCase());
    const docWords = new Set(texts.flatMap((s) => words(s).map(norm)));
    const joined = texts.map(norm);
    if (search.caseSensitive && !search.terms.some((t) => docWords.has(t))) return false;
    if (search.negated.some((t) => docWords.has(t))) return false;
    if (!search.phrases.every((p) => joined.some((s) => s.includes(p)))) return false;
    if (search.negatedPhrases.some((p) => joined.some((s) => s.includes(p)))) return false;
    return true;
  }

  /**
   * MongoDB's text score of a document for the search terms: per field and term,
   * `weight × freq × (0.5 × count / numTokens + 0.5)` where `freq` adds 1, 1/2, 1/4... per occurrence.
   */
  score(doc: Doc, terms: string[]): number {
    const wanted = new Set(terms.map((t) => t.toLowerCase()));
    let score = 0;
    for (const [field, weight] of Object.entries(this.weights)) {
      for (const s of strings(getPath(doc, field))) {
        const toks = words(s).map((w) => w.toLowerCase());
        const stat = new Map<string, { count: number; freq: number; exp: number }>();
        for (const t of toks) {
          if (!wanted.has(t)) continue;
          const d = stat.get(t) ?? { count: 0, freq: 0, exp: 0 };
          d.exp = d.exp ? d.exp * 2 : 1;
          d.count++;
          d.freq += 1 / d.exp;
          stat.set(t, d);
        }
        for (const d of stat.values()) score += weight * d.freq * ((0.5 * d.count) / toks.length + 0.5);
      }
    }
    return score;
  }
}

/** The union of posting lists for one prefix as an {@link IdCursor} (see {@link TextIndex.cursor}). */
class PostingsCursor implements IdCursor {
  key: string | undefined;
  rid = 0;
  /** One cursor per list, and its current entry (undefined once past the prefix). */
  private readonly cursors: ListCursor[];
  private readonly heads: (string | undefined)[];
  /** The current entry (the least head, or the greatest when reverse). */
  private entry: string | undefined;

  constructor(
    lists: SortedList[],
    private readonly prefix: string,
    private readonly reverse: boolean,
    private readonly stats: ScanStats,
  ) {
    this.cursors = lists.map((l) => new ListCursor(l, reverse, l.seek(prefix, reverse)));
    this.heads = this.cursors.map((c) => this.within(c));
    this.pick();
  }

  private within(c: ListCursor): string | undefined {
    return c.entry?.startsWith(this.prefix) ? c.entry : undefined;
  }

  private pick(): void {
    let best: string | undefined;
    for (const h of this.heads) {
      if (h !== undefined && (best === undefined || (this.reverse ? h > best : h < best))) best = h;
    }
    this.entry = best;
    this.key = best === undefined ? undefined : best.slice(this.prefix.length, best.length - 4);
    if (best !== undefined) this.rid = ridOf(best);
  }

  next(): void {
    const current = this.entry;
    if (current === undefined) return;
    for (let i = 0; i < this.heads.length; i++) {
      if (this.heads[i] !== current) continue;
      this.stats.keysExamined++;
      this.cursors[i].next();
      this.heads[i] = this.within(this.cursors[i]);
    }
    this.pick();
  }

  seek(key: string): void {
    const bound = this.prefix + key;
    for (let i = 0; i < this.heads.length; i++) {
      if (this.heads[i] === undefined) continue;
      this.cursors[i].seek(bound, this.reverse);
      this.heads[i] = this.within(this.cursors[i]);
    }
    this.pick();
  }
}
