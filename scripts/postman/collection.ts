/**
 * The Postman collection and environment of the gateway, made from openapi/openapi.json by openapi-to-postmanv2.
 *
 * The requests come out of the converter as they are: their headers, query parameters, path variables and bodies are
 * the OpenAPI document's examples (`parametersResolution: Example`; with the default, `Schema`, every value is a
 * placeholder such as `<string>`). Ids are the collection variables `{{taskId}}`, `{{configId}}` and `{{agentId}}`,
 * which the document's examples name. This module changes the converted collection only where the converter cannot
 * say something:
 *   1. the JSON-RPC endpoints become one request per example of their body (the converter takes only the first), each
 *      with the A2A-Version its method belongs to (v0.3 methods have a slash: `message/send`; v1.0's do not);
 *   2. every request gets a test script: its HTTP status, a body of the documented type and what the body holds (the
 *      task sent, the config created, …), for JSON-RPC a result (or the documented error), and on a send or a
 *      push-config create the new task's or config's id stored in a collection variable for the requests after it;
 *   3. the routes that take the operator's token (security `adminToken`: /admin/…, /metrics) send `{{adminToken}}` as
 *      bearer token (the converter names it `{{bearerToken}}`, and leaves it out where the token is optional);
 *   4. what would differ from one conversion to the next goes: the converter's random ids and its saved responses,
 *      faked at random from the schemas (the OpenAPI document has the real examples).
 * Run in order against `npm start`, every request passes its checks (test/a2a/postman.test.ts runs them with newman).
 */
import { convertV2 } from 'openapi-to-postmanv2';

/** Where the files live, from the repository's root. */
export const POSTMAN_FILES = {
  collection: 'postman/logos-a2a.postman_collection.json',
  environment: 'postman/logos-a2a.postman_environment.json',
} as const;

/** The files' text: two-space JSON and a final newline, as Postman's own export. */
export function postmanJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export interface PostmanFiles {
  collection: Collection;
  environment: Environment;
}

/** The parts of the Postman collection format (v2.1) this module reads or writes. */
interface Item {
  name: string;
  item?: Item[];
  request?: {
    method: string;
    url: { path: string[] };
    header?: { key: string; value: string }[];
    body?: { raw?: string };
    auth?: { type: string; bearer?: { key: string; value: string }[] };
  };
  event?: { listen: string; script: { type: string; exec: string[] } }[];
  [other: string]: unknown;
}
interface Collection {
  info: Record<string, unknown>;
  item: Item[];
  variable: { key: string; value: string; description?: string }[];
  [other: string]: unknown;
}
interface Environment {
  name: string;
  values: { key: string; value: string; type: 'default' | 'secret'; enabled: boolean }[];
}

type Response = { content?: Record<string, unknown>; $ref?: string };
type Operation = { operationId: string; responses: Record<string, Response>; security?: Record<string, unknown>[] };
type OpenApi = {
  paths: Record<string, Record<string, Operation>>;
  components: {
    responses: Record<string, Response>;
    requestBodies: Record<string, { content: Record<string, { examples: Record<string, { $ref: string }> }> }>;
    examples: Record<string, { summary: string; value: { method: string } }>;
  };
};

/** The demo's address (npm start), and the agent whose tasks wait for input, so that they can be cancelled. */
const BASE_URL = 'http://localhost:8080';
const AGENT_ID = 'conformance';

/**
 * Requests whose answer, at their place in the run, is a documented error, and why; `root`: only the root's request,
 * not the one under /agents/{agentId}. The root serves the echo agent, whose tasks are done by the time a cancel comes
 * (the conformance agent at {{agentId}} keeps a `tck-input-required-…` task waiting, so there the cancel succeeds);
 * a subscribe comes after the cancel, so its task has ended.
 */
const ECHO_DONE = "the root's agent (echo) has completed the task already";
const ENDED = 'the task was cancelled (or completed) just before';
const NO_EXTENDED_CARD = 'no agent declares an extended card';
const EXPECTED_ERRORS: Record<string, { status?: number; rpcError?: number; root?: true; why: string }> = {
  cancelTask: { status: 409, root: true, why: ECHO_DONE },
  legacyCancelTask: { status: 400, root: true, why: ECHO_DONE },
  'rpc:CancelTask': { rpcError: -32002, root: true, why: ECHO_DONE },
  'rpc:tasks/cancel': { rpcError: -32002, root: true, why: ECHO_DONE },
  subscribeToTask: { status: 400, why: ENDED },
  subscribeToTaskPost: { status: 400, why: ENDED },
  legacySubscribeToTask: { status: 400, why: ENDED },
  legacySubscribeToTaskPost: { status: 400, why: ENDED },
  getExtendedAgentCard: { status: 400, why: NO_EXTENDED_CARD },
  legacyGetCard: { status: 400, why: NO_EXTENDED_CARD },
  approveApproval: { status: 404, why: 'set approvalTaskId to a task held for approval first' },
  rejectApproval: { status: 404, why: 'set approvalTaskId to a task held for approval first' },
};

/** The expected error of a request (by its kind: the operation or `rpc:` method), if any. */
function expectedError(kind: string, atRoot: boolean) {
  const failure = EXPECTED_ERRORS[kind];
  return failure && (atRoot || !failure.root) ? failure : undefined;
}

/** Where a send's answer has its task id, and a push-config create's answer its config id, by operation. */
const CAPTURES: Record<string, { variable: string; from: string }> = {
  sendMessage: { variable: 'taskId', from: 'body.task.id' },
  legacySendMessage: { variable: 'taskId', from: 'body.task.id' },
  'rpc:SendMessage': { variable: 'taskId', from: 'body.result.task.id' },
  'rpc:message/send': { variable: 'taskId', from: 'body.result.id' },
  createTaskPushNotificationConfig: { variable: 'configId', from: 'body.id' },
  legacyCreateTaskPushNotificationConfig: { variable: 'configId', from: 'body.pushNotificationConfig.id' },
  'rpc:CreateTaskPushNotificationConfig': { variable: 'configId', from: 'body.result.id' },
  'rpc:tasks/pushNotificationConfig/set': { variable: 'configId', from: 'body.result.pushNotificationConfig.id' },
};

/** What a successful answer holds, by kind, as a test of `body` (on JSON-RPC the whole answer, `result` inside). */
const TASK_ID = "pm.collectionVariables.get('taskId')";
const CONFIG_ID = "pm.collectionVariables.get('configId')";
const BODY_CHECKS: Record<string, [what: string, test: string]> = {
  getAgentCard: ['an agent card', "typeof body.name === 'string'"],
  getAgentCardLegacyPath: ['an agent card', "typeof body.name === 'string'"],
  getTask: ['the task sent', `body.id === ${TASK_ID}`],
  legacyGetTask: ['the task sent', `body.id === ${TASK_ID}`],
  'rpc:GetTask': ['the task sent', `body.result.id === ${TASK_ID}`],
  'rpc:tasks/get': ['the task sent', `body.result.id === ${TASK_ID}`],
  listTasks: ['a page of tasks', 'Array.isArray(body.tasks)'],
  'rpc:ListTasks': ['a page of tasks', 'Array.isArray(body.result.tasks)'],
  getTaskPushNotificationConfig: ['the config created', `body.id === ${CONFIG_ID}`],
  legacyGetTaskPushNotificationConfig: ['the config created', `body.pushNotificationConfig.id === ${CONFIG_ID}`],
  'rpc:GetTaskPushNotificationConfig': ['the config created', `body.result.id === ${CONFIG_ID}`],
  'rpc:tasks/pushNotificationConfig/get': [
    'the config created',
    `body.result.pushNotificationConfig.id === ${CONFIG_ID}`,
  ],
  listTaskPushNotificationConfigs: ['a list of configs', 'Array.isArray(body.configs)'],
  legacyListTaskPushNotificationConfigs: ['a list of configs', 'Array.isArray(body.configs)'],
  'rpc:ListTaskPushNotificationConfigs': ['a list of configs', 'Array.isArray(body.result.configs)'],
  'rpc:tasks/pushNotificationConfig/list': ['a list of configs', 'Array.isArray(body.result)'],
  cancelTask: ['a cancelled task', "body.status.state === 'TASK_STATE_CANCELED'"],
  legacyCancelTask: ['a cancelled task', "body.status.state === 'TASK_STATE_CANCELLED'"],
  'rpc:CancelTask': ['a cancelled task', "body.result.status.state === 'TASK_STATE_CANCELED'"],
  'rpc:tasks/cancel': ['a cancelled task', "body.result.status.state === 'canceled'"],
};

export async function postmanFiles(openapi: OpenApi): Promise<PostmanFiles> {
  const collection = await convert(openapi);
  const rewrite = (items: Item[]): Item[] =>
    items.map((item) => {
      if (item.item) return { ...forget(item), item: rewrite(item.item) };
      const [path, operation] = operationOf(item, openapi);
      if (operation.security?.some((scheme) => 'adminToken' in scheme))
        item.request!.auth = { type: 'bearer', bearer: [{ key: 'token', value: '{{adminToken}}' }] };
      if (operation.operationId === 'jsonRpc' || operation.operationId === 'agentJsonRpc')
        return jsonRpcFolder(item, path, openapi);
      return withChecks(forget(item), restChecks(operation, item.request!.method, openapi));
    });
  return {
    collection: {
      info: {
        name: 'logos-a2a gateway',
        description: `${collection.info.description ? descriptionOf(collection.info.description) : ''}\n\nMade from openapi/openapi.json by npm run postman: do not edit by hand. Run the whole collection in order against npm start (baseUrl ${BASE_URL}); a send stores the new task's id in taskId, a push-config create the config's id in configId.`,
        schema: collection.info.schema,
      },
      item: rewrite(collection.item),
      variable: [
        { key: 'baseUrl', value: BASE_URL, description: 'The gateway (npm start listens here).' },
        { key: 'agentId', value: AGENT_ID, description: 'The agent of the /agents/{agentId} requests.' },
        { key: 'taskId', value: '', description: 'Set by each send.' },
        { key: 'configId', value: '', description: 'Set by each push-config create.' },
        { key: 'approvalTaskId', value: '', description: 'A task held for approval (GET /admin/approvals).' },
      ],
    },
    environment: {
      name: 'logos-a2a (npm start)',
      values: [
        { key: 'baseUrl', value: BASE_URL, type: 'default', enabled: true },
        { key: 'agentId', value: AGENT_ID, type: 'default', enabled: true },
        // npm start prints its admin token (or takes LOGOS_A2A_ADMIN_TOKEN): the admin requests need it.
        { key: 'adminToken', value: '', type: 'secret', enabled: true },
      ],
    },
  };
}

function convert(openapi: OpenApi): Promise<Collection> {
  return new Promise((resolve, reject) =>
    convertV2({ type: 'json', data: openapi }, { parametersResolution: 'Example' }, (error, result) => {
      const collection = result?.result ? result.output?.[0]?.data : undefined;
      if (error) reject(error);
      else if (!collection) reject(new Error(`openapi-to-postmanv2: ${result?.reason ?? 'no collection'}`));
      else resolve(collection as unknown as Collection);
    }),
  );
}

/**
 * The OpenAPI path and operation of a converted request, from its method and URL path (`:name` is a path variable;
 * `{{name}}:cancel` a segment whose variable the converter could not make a path variable).
 */
function operationOf(item: Item, openapi: OpenApi): [string, Operation] {
  const segments = item.request!.url.path.map((segment) =>
    segment.replace(/^:(\w+)$/, '{$1}').replace(/\{\{(\w+)\}\}/g, '{$1}'),
  );
  const path = `/${segments.join('/')}`.replace(/\/$/, '') || '/';
  const operation = openapi.paths[path]?.[item.request!.method.toLowerCase()];
  if (!operation) throw new Error(`No operation ${item.request!.method} ${path} in openapi.json`);
  return [path, operation];
}

/** A converted item without its random id and its saved responses (see 4. above). */
function forget(item: Item): Item {
  const { id: _id, response: _response, ...rest } = item;
  return rest;
}

function descriptionOf(description: unknown): string {
  return typeof description === 'string' ? description : String((description as { content?: string }).content ?? '');
}

/** One request per example of the JSON-RPC body, in the document's order, in a folder named like the endpoint. */
function jsonRpcFolder(item: Item, path: string, openapi: OpenApi): Item {
  const examples = openapi.components.requestBodies.JsonRpcRequest!.content['application/json']!.examples;
  const requests = Object.values(examples).map(({ $ref }) => {
    const example = openapi.components.examples[$ref.split('/').pop()!]!;
    const method = example.value.method;
    const request = structuredClone(forget(item).request!);
    request.body = { ...request.body, raw: JSON.stringify(example.value, null, 2) };
    request.header = request.header!.map((header) =>
      header.key === 'A2A-Version' ? { ...header, value: method.includes('/') ? '0.3' : '1.0' } : header,
    );
    const streams = method === 'SendStreamingMessage' || method === 'message/stream';
    if (streams) request.header = request.header.map((h) => (h.key === 'Accept' ? { ...h, value: SSE } : h));
    const failure = expectedError(`rpc:${method}`, path === '/');
    return withChecks({ name: example.summary, request }, [
      ...statusChecks(200),
      ...(streams ? sseChecks() : jsonChecks()),
      ...rpcChecks(failure?.rpcError, failure?.why, streams),
      ...(failure ? [] : bodyChecks(BODY_CHECKS[`rpc:${method}`])),
      ...captureChecks(CAPTURES[`rpc:${method}`]),
    ]);
  });
  return { name: item.name, item: requests };
}

const SSE = 'text/event-stream';

/** The checks of an HTTP+JSON, card or gateway request: its documented status, its body's type and contents. */
function restChecks(operation: Operation, method: string, openapi: OpenApi): string[] {
  const kind = operation.operationId.replace(/^agent(?=[A-Z])/, '').replace(/^./, (c) => c.toLowerCase());
  const failure = expectedError(kind, kind === operation.operationId);
  const status =
    failure?.status ?? Number(Object.keys(operation.responses).find((code) => /^2\d\d$/.test(code)) ?? NaN);
  if (Number.isNaN(status)) throw new Error(`${operation.operationId} documents no success status`);
  const response = operation.responses[String(status)];
  const types = Object.keys(
    (response?.$ref ? openapi.components.responses[response.$ref.split('/').pop()!] : response)?.content ?? {},
  );
  const typeChecks =
    method === 'HEAD' || types.length === 0
      ? []
      : types.includes(SSE)
        ? sseChecks()
        : types.some((type) => type.includes('json'))
          ? jsonChecks()
          : [`pm.test('a ${types[0]} body', () => pm.expect(pm.response.text()).to.not.be.empty);`];
  return [
    ...(failure ? [`// Expected: ${failure.why}.`] : []),
    ...statusChecks(status),
    ...typeChecks,
    ...bodyChecks(failure ? DOCUMENTED_ERROR : BODY_CHECKS[kind]),
    ...captureChecks(CAPTURES[kind]),
  ];
}

/** An HTTP+JSON error says what went wrong: v1.0 `{error: {message}}`, v0.3 `{code, message}`. */
const DOCUMENTED_ERROR: [string, string] = [
  'an error with a message',
  "typeof (body.error ? body.error.message : body.message) === 'string'",
];

function bodyChecks(check: [what: string, test: string] | undefined): string[] {
  return check ? [`pm.test('${check[0]}', () => pm.expect(${check[1]}).to.be.true);`] : [];
}

function statusChecks(status: number): string[] {
  return [`pm.test('HTTP ${status}', () => pm.response.to.have.status(${status}));`];
}

function jsonChecks(): string[] {
  return [`const body = pm.response.json();`, `pm.test('a JSON body', () => pm.expect(body).to.be.an('object'));`];
}

/** Every event of a stream is a `data:` line of JSON; there is at least one. */
function sseChecks(): string[] {
  return [
    `const events = pm.response.text().split('\\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));`,
    `pm.test('Server-Sent Events of JSON', () => pm.expect(events).to.not.be.empty);`,
    `const body = events[0];`,
  ];
}

/** A JSON-RPC answer: a result, or the one error expected here; for a stream, every event. */
function rpcChecks(errorCode: number | undefined, why: string | undefined, streams: boolean): string[] {
  const answers = streams ? 'events' : '[body]';
  return errorCode === undefined
    ? [
        `pm.test('a JSON-RPC result', () => ${answers}.forEach((answer) => pm.expect(answer).to.have.property('result')));`,
      ]
    : [
        `// Expected: ${why}.`,
        `pm.test('JSON-RPC error ${errorCode}', () => pm.expect(body.error.code).to.equal(${errorCode}));`,
      ];
}

function captureChecks(capture: { variable: string; from: string } | undefined): string[] {
  if (!capture) return [];
  return [
    `pm.test('stores ${capture.variable}', () => {`,
    `  pm.expect(${capture.from}).to.be.a('string').that.is.not.empty;`,
    `  pm.collectionVariables.set('${capture.variable}', ${capture.from});`,
    `});`,
  ];
}

function withChecks(item: Item, exec: string[]): Item {
  return { ...item, event: [{ listen: 'test', script: { type: 'text/javascript', exec } }] };
}
