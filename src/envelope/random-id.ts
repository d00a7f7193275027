import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

/**
 * Hex ids from the CSPRNG, drawn from a pool refilled 4 KiB at a time: one call into OpenSSL per
 * 256 ids instead of one per request (the same trick node's randomUUID uses). Every id is still
 * fresh random bytes; none is ever handed out twice.
 */
export function createRandomIdSource(bytesPerId: number): () => string {
  const pool = Buffer.alloc(POOL_BYTES - (POOL_BYTES % bytesPerId));
  let offset = pool.length;
  return () => {
    if (offset >= pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const id = pool.toString('hex', offset, offset + bytesPerId);
    offset += bytesPerId;
    return id;
  };
}
