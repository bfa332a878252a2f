/** The SDK's per-call context, built from the HTTP request. */
import { A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import type { ProtocolVersion } from './protocol-version.ts';
import { CALL_ABORT_KEY } from '../bridge/call-abort.ts';

export function requestedVersionOf(c: Context): string | undefined {
  return c.req.header(A2A_VERSION_HEADER) ?? c.req.query(A2A_VERSION_HEADER);
}

/** Extensions come as comma-separated URIs in A2A-Extensions (v0.3 clients: X-A2A-Extensions). */
export function callContext(c: Context, version: ProtocolVersion, user?: User, abort?: AbortSignal): ServerCallContext {
  const header = c.req.header(HTTP_EXTENSION_HEADER) ?? c.req.header(LEGACY_HTTP_EXTENSION_HEADER);
  return new ServerCallContext({
    requestedVersion: version,
    requestedExtensions: header ? extensionsIn(header) : [],
    // Without a state of its own the context makes an empty one.
    ...(abort ? { state: new Map<string, unknown>([[CALL_ABORT_KEY, abort]]) } : {}),
    ...(user ? { user } : {}),
  });
}

function extensionsIn(header: string): string[] {
  return header
    .split(',')
    .map((uri) => uri.trim())
    .filter(Boolean);
}
