const TABLE = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  TABLE[i] = c;
}

/** CRC-32C (Castagnoli), as used by OP_MSG checksums and the journal's record checksums. Returns an unsigned 32-bit value. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  let crc = -1;
  for (let i = start; i < end; i++) crc = TABLE[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
