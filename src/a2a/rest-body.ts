/**
 * The request body of both HTTP+JSON bindings, read once, at the edge: its media type, its size, and JSON within the
 * nesting limit. A refusal is thrown as the A2A error to answer, inside the binding's call like the request
 * handler's own; when it leaves the body unread (415, 413) it carries Connection: close (request-body.ts).
 */
import { LegacyA2AError } from '@a2a-js/sdk/compat/v0_3/server';
import { RequestMalformedError, RestContentTypeNotSupportedError, RestRequestMalformedError } from '@a2a-js/sdk/errors';
import type { ProtocolVersion } from './protocol-version.ts';
import { contentTypeMessage, isJsonContentType, parseJsonBody, readBody, discardUnreadBody } from './request-body.ts';

/**
 * The JSON value of the body. v1.0 takes application/json and application/a2a+json; v0.3 only application/json,
 * and calls JSON that does not parse a parse error (-32700), as its clients read it.
 */
export async function readRestBody(request: Request, maxBytes: number, version: ProtocolVersion): Promise<unknown> {
  const contentType = request.headers.get('content-type') ?? undefined;
  if (!acceptsContentType(contentType, version)) {
    const message =
      version === '1.0'
        ? contentTypeMessage(contentType)
        : `Content-Type must be application/json; got ${contentType ? `"${contentType}"` : 'none'}.`;
    throw new RestContentTypeNotSupportedError({ message, statusCode: 415, headers: await discardUnreadBody(request) });
  }
  const body = await readBody(request, maxBytes);
  if (!body.ok)
    throw new RestRequestMalformedError({ message: body.message, statusCode: body.status, headers: body.headers });
  const json = parseJsonBody(body.text);
  if (json.ok) return json.value;
  if (json.reason === 'not-json' && version === '0.3') throw LegacyA2AError.parseError(json.message);
  throw new RequestMalformedError(json.message);
}

function acceptsContentType(contentType: string | undefined, version: ProtocolVersion): boolean {
  if (version === '1.0') return isJsonContentType(contentType);
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}
