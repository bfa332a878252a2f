/**
 * API keys: when the operator configures any, every A2A call must carry one (`Authorization: Bearer <key>` or
 * `X-API-Key: <key>`, as headers or gRPC metadata), and the key's name travels with the call so the spending gate
 * can hold it to its budget. Cards stay public: discovery needs no key.
 */
import type { User } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { bearerToken, sameDigest, secretDigest } from './bearer.ts';

export interface ApiKeyConfig {
  name: string;
  key: string;
}

/** A caller that presented a valid key. */
export class ApiKeyUser implements User {
  readonly #name: string;
  constructor(name: string) {
    this.#name = name;
  }
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.#name;
  }
}

export type Authentication = { ok: true; user: ApiKeyUser | undefined } | { ok: false; message: string };

export class ApiKeys {
  /** Keys are compared as SHA-256 digests, in constant time, so their length leaks nothing either. */
  readonly #keys: { name: string; digest: Buffer }[];

  constructor(keys: readonly ApiKeyConfig[]) {
    this.#keys = keys.map(({ name, key }) => ({ name, digest: secretDigest(key) }));
  }

  get required(): boolean {
    return this.#keys.length > 0;
  }

  authenticate(c: Context): Authentication {
    // An open gateway reads no credentials: every call would pay two header lookups for nothing.
    if (!this.required) return { ok: true, user: undefined };
    return this.authenticateCredentials(c.req.header('x-api-key'), c.req.header('authorization'));
  }

  /** The same check on the two credentials as they came (gRPC sends them as metadata of the same names). */
  authenticateCredentials(apiKey: string | undefined, authorization: string | undefined): Authentication {
    if (!this.required) return { ok: true, user: undefined };
    const presented = apiKey ?? bearerToken(authorization);
    if (!presented)
      return {
        ok: false,
        message: 'This gateway needs an API key: send Authorization: Bearer <key> (or X-API-Key: <key>).',
      };
    const candidate = secretDigest(presented);
    const match = this.#keys.find((entry) => sameDigest(entry.digest, candidate));
    return match ? { ok: true, user: new ApiKeyUser(match.name) } : { ok: false, message: 'The API key is not valid.' };
  }
}
