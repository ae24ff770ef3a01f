import { createHash, randomBytes } from 'node:crypto';

/**
 * Where the simulator's secrets come from (client secret, CDN signing key, interaction and webhook tokens): random
 * bytes, or, given a `seed`, bytes derived from it and the order of the requests, so a run that makes the same calls
 * in the same order (the recorded day) writes the same tokens and signed URLs into its payloads.
 */
export class Secrets {
  private issued = 0;

  constructor(private readonly seed?: string) {}

  /** `size` secret bytes for `purpose` (a label that keeps derived secrets of different uses apart). */
  bytes(purpose: string, size: number): Buffer {
    if (this.seed === undefined) return randomBytes(size);
    this.issued += 1;
    const out: Buffer[] = [];
    for (let block = 0; out.length * 32 < size; block++)
      out.push(createHash('sha256').update(`${this.seed}:${purpose}:${this.issued}:${block}`).digest());
    return Buffer.concat(out).subarray(0, size);
  }
}
