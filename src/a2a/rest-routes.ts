/**
 * The routes of the v1.0 HTTP+JSON binding (spec §11), relative to an agent's base URL. The v0.3 binding's live
 * under /v1/ (rest-v03-routes.ts); no v1.0 path starts with it.
 */
export type RestRoute =
  | { name: 'send' | 'stream' | 'list' | 'extendedCard' }
  | { name: 'get' | 'cancel' | 'subscribe' | 'pushConfigs'; taskId: string }
  | { name: 'pushConfig'; taskId: string; configId: string };

interface RouteSpec {
  pattern: RegExp;
  methods: string[];
  build: (match: RegExpExecArray) => RestRoute;
}

const ROUTES: RouteSpec[] = [
  { pattern: /^\/message:send$/, methods: ['POST'], build: () => ({ name: 'send' }) },
  { pattern: /^\/message:stream$/, methods: ['POST'], build: () => ({ name: 'stream' }) },
  { pattern: /^\/tasks$/, methods: ['GET'], build: () => ({ name: 'list' }) },
  { pattern: /^\/extendedAgentCard$/, methods: ['GET'], build: () => ({ name: 'extendedCard' }) },
  { pattern: /^\/tasks\/([^/:]+):cancel$/, methods: ['POST'], build: (m) => ({ name: 'cancel', taskId: m[1]! }) },
  // Subscribe is POST in spec §5.3 and GET in the proto's HTTP annotation: accept both.
  {
    pattern: /^\/tasks\/([^/:]+):subscribe$/,
    methods: ['POST', 'GET'],
    build: (m) => ({ name: 'subscribe', taskId: m[1]! }),
  },
  { pattern: /^\/tasks\/([^/:]+)$/, methods: ['GET'], build: (m) => ({ name: 'get', taskId: m[1]! }) },
  {
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/,
    methods: ['POST', 'GET'],
    build: (m) => ({ name: 'pushConfigs', taskId: m[1]! }),
  },
  {
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/]+)$/,
    methods: ['GET', 'DELETE'],
    build: (m) => ({ name: 'pushConfig', taskId: m[1]!, configId: m[2]! }),
  },
];

export type RestRouteMatch = { route: RestRoute } | { allow: string[] } | undefined;

/** Which REST route a path names; `allow` when the path exists but not for this method. */
export function matchRestRoute(method: string, path: string): RestRouteMatch {
  for (const spec of ROUTES) {
    const match = spec.pattern.exec(path);
    if (!match) continue;
    if (!spec.methods.includes(method)) return { allow: spec.methods };
    return { route: spec.build(match) };
  }
  return undefined;
}
