/**
 * The card of an HTTP A2A agent about to be published on Logos: fetched with the official client's card resolver
 * (v1.0 or v0.3, which it turns into the v1.0 model), and its own JWS signatures checked on the JSON as served
 * (a2a/card-jws.ts), before anything rewrites it. The keys come from the `jku` of its signatures, fetched only from
 * the agent's own origin, the one origin trusted for its card.
 */
import type { AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { verifyProjectedCard, type ProjectedCardRejection } from '../a2a/card-jws.ts';
import { isPlainObject } from '../json-object.ts';
import type { CardPolicy } from './publish-settings.ts';

/** What the origin card's signatures say; recorded in the Logos card, never forwarded. */
export type OriginSignature =
  | { status: 'verified'; kid: string; alg: string; jku?: string }
  | { status: 'unsigned' }
  | { status: 'unverified'; reason: Exclude<ProjectedCardRejection, 'unsigned'>; message: string };

export interface OriginCard {
  /** The card in the SDK's v1.0 model (a v0.3 card as the resolver translates it). */
  card: AgentCard;
  /** The JSON as served, which the signatures cover. */
  json: Record<string, unknown>;
  signature: OriginSignature;
}

/** A card or key set not had by then is not had: a publication never hangs on an agent that does not answer. */
const FETCH_TIMEOUT_MS = 10_000;

export type OriginCardOutcome = { ok: true; origin: OriginCard } | { ok: false; message: string };

/** `headers`: the agent's auth (API key or bearer), sent with the card and key requests as with every call. */
export async function fetchOriginCard(
  url: string,
  options: { headers?: Record<string, string>; policy?: CardPolicy } = {},
): Promise<OriginCardOutcome> {
  let json: unknown;
  // The resolver parses the body itself: the JSON as served is kept on the way, for the signature check.
  const keepBody: typeof fetch = async (input, init) => {
    const response = await fetch(input, {
      ...init,
      headers: { ...headersOf(init), ...options.headers },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (response.ok) json = await response.clone().json();
    return response;
  };
  let card: AgentCard;
  try {
    card = await new DefaultAgentCardResolver({ fetchImpl: keepBody, legacyCompat: { enabled: true } }).resolve(url);
  } catch (error) {
    return { ok: false, message: `the agent card of ${url} could not be had: ${describeFetchError(error)}` };
  }
  if (!isPlainObject(json)) return { ok: false, message: `the agent card of ${url} is not a JSON object` };
  const signature = await checkSignature(json, url, options.headers);
  const policy = options.policy ?? 'refuse-bad-signature';
  if (policy !== 'record' && signature.status === 'unverified' && signature.reason === 'bad-signature') {
    return { ok: false, message: `the agent card of ${url} does not match its signature: ${signature.message}` };
  }
  if (policy === 'require-signature' && signature.status !== 'verified') {
    const why = signature.status === 'unsigned' ? 'it is unsigned' : signature.message;
    return { ok: false, message: `the agent card of ${url} is not verified (${why}), and a signature is required` };
  }
  return { ok: true, origin: { card, json, signature } };
}

async function checkSignature(
  json: Record<string, unknown>,
  url: string,
  headers: Record<string, string> | undefined,
): Promise<OriginSignature> {
  const keys: unknown[] = [];
  for (const jku of sameOriginKeySets(json, url)) {
    try {
      const response = await fetch(jku, { headers: headers ?? {}, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      const set: unknown = response.ok ? await response.json() : undefined;
      if (isPlainObject(set) && Array.isArray(set.keys)) keys.push(...set.keys);
    } catch {
      // A key set that cannot be had leaves the signature unverified ('unknown-key'), which the check reports.
    }
  }
  const verified = verifyProjectedCard(json, { keys });
  if (verified.ok) return { status: 'verified', kid: verified.kid, alg: verified.alg, ...pick(verified.jku) };
  if (verified.reason === 'unsigned') return { status: 'unsigned' };
  return { status: 'unverified', reason: verified.reason, message: verified.message };
}

const pick = (jku: string | undefined) => (jku ? { jku } : {});

/** The `jku` URLs of the card's signatures that are on the agent's own origin. */
function sameOriginKeySets(json: Record<string, unknown>, url: string): string[] {
  const origin = new URL(url).origin;
  const found = new Set<string>();
  for (const entry of Array.isArray(json.signatures) ? json.signatures : []) {
    if (!isPlainObject(entry) || typeof entry.protected !== 'string') continue;
    try {
      const header: unknown = JSON.parse(Buffer.from(entry.protected, 'base64url').toString('utf8'));
      if (!isPlainObject(header) || typeof header.jku !== 'string') continue;
      const jku = new URL(header.jku, url);
      if (jku.origin === origin) found.add(jku.href);
    } catch {
      // Malformed: the verification reports it.
    }
  }
  return [...found];
}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  return Object.fromEntries(new Headers(init?.headers).entries());
}

/** A failed fetch as people read it: node's "fetch failed" says nothing; its cause (ECONNREFUSED…) does. */
export function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const message = error instanceof Error ? error.message : String(error);
  if (cause && typeof cause.code === 'string') return `${message} (${cause.code})`;
  if (cause && typeof cause.message === 'string') return `${message} (${cause.message})`;
  return message;
}
