/** The OpenAPI document stays in step with the routers: every agent route it lists exists, with the methods it lists. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchRestRoute } from '../../src/a2a/rest-routes.ts';
import { matchLegacyRestRoute } from '../../src/a2a/rest-v03-routes.ts';

const document = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, unknown>;
  components: Record<string, Record<string, unknown>>;
};

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];
const AGENT_PREFIX = '/agents/{agentId}';
/** Agent paths served by the HTTP+JSON routers (the card and JSON-RPC paths are the app's own). */
const restPaths = Object.keys(document.paths).filter((path) => /^\/(message|tasks|extendedAgentCard|v1\/)/.test(path));

const concrete = (path: string) => path.replace('{taskId}', 't1').replace('{configId}', 'c1');
const methodsOf = (path: string) =>
  METHODS.filter((method) => method in document.paths[path]!).map((method) => method.toUpperCase());
const route = (method: string, path: string) =>
  path.startsWith('/v1/') ? matchLegacyRestRoute(method, concrete(path)) : matchRestRoute(method, concrete(path));

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and every $ref in it resolves', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/(\w+)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(100);
    expect(
      refs.filter(([, kind, name]) => document.components[kind!]?.[name!] === undefined).map(([ref]) => ref),
    ).toEqual([]);
  });

  it('lists the v1.0 and v0.3 HTTP+JSON routes with exactly the methods the routers take', () => {
    expect(restPaths).toContain('/v1/message:send');
    expect(restPaths).toContain('/tasks/{taskId}/pushNotificationConfigs');
    for (const path of restPaths) {
      const methods = methodsOf(path);
      for (const method of methods) expect(route(method, path), `${method} ${path}`).toHaveProperty('route');
      expect(route('PATCH', path), path).toEqual({ allow: expect.arrayContaining(methods) });
      expect((route('PATCH', path) as { allow: string[] }).allow.length, path).toBe(methods.length);
    }
  });

  it('lists every agent route at the root and under /agents/{agentId} alike', () => {
    const agentPaths = Object.keys(document.paths)
      .filter((path) => path.startsWith(`${AGENT_PREFIX}/`))
      .map((path) => path.slice(AGENT_PREFIX.length));
    for (const path of [...restPaths, '/.well-known/agent-card.json']) {
      expect(agentPaths, path).toContain(path);
      expect(methodsOf(`${AGENT_PREFIX}${path}`), path).toEqual(methodsOf(path));
    }
  });

  it('offers push notifications and the probes, and says what a webhook receives', () => {
    expect(JSON.stringify(document)).not.toMatch(/not offered here|always -32003|does not offer push/i);
    expect(document.paths['/livez']).toBeDefined();
    expect(document.paths['/readyz']).toBeDefined();
    expect(document.webhooks).toHaveProperty('taskEvent.post.requestBody');
  });
});
