import { createHash, randomBytes } from 'node:crypto';

/**
 * UUIDs whose first 48 bits are a time in milliseconds (the layout of UUID version 7): sort keys made of
 * them sort by time, so a partition reads oldest or newest first without a separate date in the key.
 * `seed` makes the id deterministic (the same seed and time give the same id): a stream record processed
 * twice writes the same item.
 */
export function timeOrderedId(at: Date = new Date(), seed?: string): string {
  const bytes = seed ? createHash('sha256').update(seed).digest().subarray(0, 16) : randomBytes(16);
  const ms = BigInt(Math.max(0, at.getTime()));
  for (let i = 0; i < 6; i += 1) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
