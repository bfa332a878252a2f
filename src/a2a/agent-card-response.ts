/**
 * The card endpoint: v1.0 by default, v0.3 on request (A2A-Version: 0.3 or ?v=0.3), with validators so clients and
 * caches can revalidate cheaply (ETag / If-None-Match, Last-Modified / If-Modified-Since).
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { respond } from './responses.ts';
import { negotiateVersion } from './protocol-version.ts';
import { requestedVersionOf } from './call-context.ts';

export interface CardVariant {
  body: string;
  etag: string;
}

export interface CardDocument {
  v1: CardVariant;
  v03: CardVariant;
  lastModified: Date;
}

export function cardDocument(v1: unknown, v03: unknown, lastModified: Date): CardDocument {
  return { v1: variant(v1), v03: variant(v03), lastModified: new Date(Math.floor(lastModified.getTime() / 1000) * 1000) };
}

function variant(json: unknown): CardVariant {
  const body = JSON.stringify(json);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

export function cardResponse(c: Context, card: CardDocument): Response {
  const asked = c.req.query('v') ?? requestedVersionOf(c);
  // The card is discovery: a client that sends no version gets the current one.
  const negotiated = negotiateVersion(asked, '1.0');
  const chosen = negotiated.ok && negotiated.version === '0.3' ? card.v03 : card.v1;
  const headers = {
    'Content-Type': 'application/json',
    'Cache-Control': 'public, max-age=300',
    ETag: chosen.etag,
    'Last-Modified': card.lastModified.toUTCString(),
    Vary: 'A2A-Version',
  };
  const ifNoneMatch = c.req.header('if-none-match');
  const ifModifiedSince = c.req.header('if-modified-since');
  const notModified = ifNoneMatch
    ? ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === chosen.etag || tag.trim() === '*')
    : ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= card.lastModified.getTime();
  if (notModified) return respond(null, 304, headers);
  return respond(c.req.method === 'HEAD' ? null : chosen.body, 200, headers);
}
