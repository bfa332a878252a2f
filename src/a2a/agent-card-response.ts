/**
 * The card endpoint: the pure v1.0 card on A2A-Version: 1.0 (or ?v=1.0), the pure v0.3 card on 0.3, and for a
 * client that names no version the operator's default shape (the union card unless `cardShape` is `v1`), with
 * validators so clients and caches can revalidate cheaply (ETag / If-None-Match, Last-Modified / If-Modified-Since).
 */
import { createHash } from 'node:crypto';
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import type { Context } from 'hono';
import { respond } from './responses.ts';
import { negotiateVersion } from './protocol-version.ts';
import { requestedVersionOf } from './call-context.ts';
import type { CardShape, ServedCards } from './served-cards.ts';

export interface CardVariant {
  body: string;
  etag: string;
}

export interface CardDocument {
  v1: CardVariant;
  v03: CardVariant;
  /** What a client that names no version gets. */
  unversioned: CardVariant;
  lastModified: Date;
}

export function cardDocument(cards: ServedCards, shape: CardShape, lastModified: Date): CardDocument {
  const v1 = variant(cards.v1);
  return {
    v1,
    v03: variant(cards.v03),
    unversioned: shape === 'v1' ? v1 : variant(cards.union),
    lastModified: new Date(Math.floor(lastModified.getTime() / 1000) * 1000),
  };
}

function variant(json: unknown): CardVariant {
  const body = JSON.stringify(json);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

export function cardResponse(c: Context, card: CardDocument): Response {
  const asked = c.req.query('v') ?? requestedVersionOf(c);
  // The card is discovery: a version it does not know gets the same card as no version at all.
  const negotiated = asked?.trim() ? negotiateVersion(asked) : undefined;
  const chosen = !negotiated?.ok ? card.unversioned : negotiated.version === '0.3' ? card.v03 : card.v1;
  const headers = {
    'Content-Type': 'application/json',
    'Cache-Control': 'public, max-age=300',
    ETag: chosen.etag,
    'Last-Modified': card.lastModified.toUTCString(),
    Vary: A2A_VERSION_HEADER,
  };
  const ifNoneMatch = c.req.header('if-none-match');
  const ifModifiedSince = c.req.header('if-modified-since');
  const notModified = ifNoneMatch
    ? ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === chosen.etag || tag.trim() === '*')
    : ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= card.lastModified.getTime();
  if (notModified) return respond(null, 304, headers);
  return respond(c.req.method === 'HEAD' ? null : chosen.body, 200, headers);
}
