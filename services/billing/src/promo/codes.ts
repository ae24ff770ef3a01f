import { randomInt } from 'node:crypto';

/** Crockford's base32 alphabet (no I, L, O, U): 32 characters, 5 bits each. */
export const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Characters per code: 20 x 5 bits = 100 random bits. */
export const CODE_LENGTH = 20;

/** A new canonical code: `CODE_LENGTH` characters drawn uniformly from the alphabet with the CSPRNG. */
export function generateCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * The canonical form of user input, with Crockford's decoding rules: upper case, spaces and dashes dropped,
 * `O` read as `0`, `I` and `L` read as `1`.
 */
export function normalizeCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

/** The display form: groups of five joined by dashes (`ABCDE-FGHJK-MNPQR-STVWX`). */
export function formatCode(code: string): string {
  return code.match(/.{1,5}/g)?.join('-') ?? code;
}
