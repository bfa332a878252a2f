/**
 * Bearer credentials, for both the callers' API keys and the operator's admin token: reading the header, and
 * comparing secrets as SHA-256 digests in constant time, so that neither a secret's content nor its length leaks
 * through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
}

export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function sameDigest(a: Buffer, b: Buffer): boolean {
  return timingSafeEqual(a, b);
}
