/** The SDK's per-call context, built from the HTTP request. */
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { VERSION_HEADER, type ProtocolVersion } from './protocol-version.ts';
import { CALL_ABORT_KEY } from '../bridge/call-abort.ts';

export function requestedVersionOf(c: Context): string | undefined {
  return c.req.header(VERSION_HEADER) ?? c.req.query(VERSION_HEADER);
}

/** Extensions come as comma-separated URIs in A2A-Extensions (v0.3 clients: X-A2A-Extensions). */
export function callContext(c: Context, version: ProtocolVersion, user?: User, abort?: AbortSignal): ServerCallContext {
  const header = c.req.header('A2A-Extensions') ?? c.req.header('X-A2A-Extensions') ?? '';
  const extensions = header.split(',').map((uri) => uri.trim()).filter(Boolean);
  const state = new Map<string, unknown>(abort ? [[CALL_ABORT_KEY, abort]] : []);
  return new ServerCallContext({ requestedVersion: version, requestedExtensions: extensions, state, ...(user ? { user } : {}) });
}
