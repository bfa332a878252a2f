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
  const header = c.req.header(HTTP_EXTENSION_HEADER) ?? c.req.header(LEGACY_HTTP_EXTENSION_HEADER) ?? '';
  const extensions = header
    .split(',')
    .map((uri) => uri.trim())
    .filter(Boolean);
  const state = new Map<string, unknown>(abort ? [[CALL_ABORT_KEY, abort]] : []);
  return new ServerCallContext({
    requestedVersion: version,
    requestedExtensions: extensions,
    state,
    ...(user ? { user } : {}),
  });
}
