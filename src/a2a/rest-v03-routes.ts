/**
 * The routes of the v0.3 HTTP+JSON binding, relative to an agent's base URL: the HTTP annotations of the v0.3
 * `a2a.proto`, under `/v1/`, as the SDK's own v0.3 REST router serves them.
 */
export type LegacyRestRoute =
  | { name: 'card' | 'send' | 'stream' }
  | { name: 'getTask' | 'cancel' | 'subscribe' | 'createPushConfig' | 'listPushConfigs'; taskId: string }
  | { name: 'getPushConfig' | 'deletePushConfig'; taskId: string; configId: string };

export type LegacyRestRouteMatch = { route: LegacyRestRoute } | { allow: string[] } | undefined;

interface PathParams {
  taskId: string;
  configId: string;
}

interface RouteSpec {
  pattern: RegExp;
  methods: Record<string, (params: PathParams) => LegacyRestRoute>;
}

const subscribe = ({ taskId }: PathParams): LegacyRestRoute => ({ name: 'subscribe', taskId });

const ROUTES: RouteSpec[] = [
  { pattern: /^\/v1\/card$/, methods: { GET: () => ({ name: 'card' }) } },
  { pattern: /^\/v1\/message:send$/, methods: { POST: () => ({ name: 'send' }) } },
  { pattern: /^\/v1\/message:stream$/, methods: { POST: () => ({ name: 'stream' }) } },
  { pattern: /^\/v1\/tasks\/([^/:]+)$/, methods: { GET: ({ taskId }) => ({ name: 'getTask', taskId }) } },
  { pattern: /^\/v1\/tasks\/([^/:]+):cancel$/, methods: { POST: ({ taskId }) => ({ name: 'cancel', taskId }) } },
  // GET is the proto's annotation (the Python client uses it); the JS client POSTs.
  { pattern: /^\/v1\/tasks\/([^/:]+):subscribe$/, methods: { GET: subscribe, POST: subscribe } },
  {
    pattern: /^\/v1\/tasks\/([^/:]+)\/pushNotificationConfigs$/,
    methods: {
      POST: ({ taskId }) => ({ name: 'createPushConfig', taskId }),
      GET: ({ taskId }) => ({ name: 'listPushConfigs', taskId }),
    },
  },
  {
    pattern: /^\/v1\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/]+)$/,
    methods: {
      GET: ({ taskId, configId }) => ({ name: 'getPushConfig', taskId, configId }),
      DELETE: ({ taskId, configId }) => ({ name: 'deletePushConfig', taskId, configId }),
    },
  },
];

/**
 * Which v0.3 REST route `path` (relative to the agent's base, e.g. `/v1/message:send`) names; `allow` when the path
 * exists but not for this method.
 */
export function matchLegacyRestRoute(method: string, path: string): LegacyRestRouteMatch {
  for (const spec of ROUTES) {
    const match = spec.pattern.exec(path);
    if (!match) continue;
    const build = spec.methods[method];
    if (!build) return { allow: Object.keys(spec.methods) };
    return { route: build({ taskId: decodeSegment(match[1]), configId: decodeSegment(match[2]) }) };
  }
  return undefined;
}

/** Clients percent-encode ids in the path (the JS client with encodeURIComponent). */
function decodeSegment(segment: string | undefined): string {
  if (segment === undefined) return '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether `path` (relative to the agent's base) is under /v1/, the v0.3 face, route or not. */
export function isLegacyRestPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}
