/**
 * Which Durable Object a request is for. Calls that drive a task (send, stream, cancel, subscribe, an operator's
 * approval) go to the task's own TaskObject, by the task id they name, or, for a message that starts a task, by a
 * fresh id that the object then gives the task. Everything else (cards, directory, GetTask and ListTasks from D1, errors) the front Worker answers
 * itself. What cannot be read here (a body too large, not JSON) is left to the front, whose edge checks answer it.
 */
import { matchRestRoute } from '../a2a/rest-routes.ts';
import { matchLegacyRestRoute } from '../a2a/rest-v03-routes.ts';

/** Set by the front Worker on what it forwards (a client's own is dropped): the task the object drives. */
export const TASK_ID_HEADER = 'X-Logos-A2A-Task-Id';

export type RequestTarget = { kind: 'task'; taskId: string; request: Request } | { kind: 'front'; request: Request };

/** JSON-RPC methods (v1.0 and v0.3) that send a message: to the task it names, or to a new one. */
const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);
/** JSON-RPC methods that act on a task named by `params.id`. */
const TASK_METHODS = new Set(['CancelTask', 'SubscribeToTask', 'tasks/cancel', 'tasks/resubscribe']);

export async function routeRequest(incoming: Request, maxBodyBytes: number): Promise<RequestTarget> {
  const headers = new Headers(incoming.headers);
  headers.delete(TASK_ID_HEADER);
  const request = new Request(incoming, { headers });
  const path = agentRelativePath(new URL(request.url).pathname);
  const front: RequestTarget = { kind: 'front', request };
  // An operator's decision on a held payment goes on (or on to pay) in the task's object.
  const decision = /^\/admin\/approvals\/([^/]+)\/(?:approve|reject)$/.exec(path);
  const decided = decision && request.method === 'POST' ? decodedSegment(decision[1]!) : undefined;
  if (decided) return toTask(request, decided);
  const rest = matchRestRoute(request.method, path);
  const legacy = matchLegacyRestRoute(request.method, path);
  const route = rest && 'route' in rest ? rest.route : legacy && 'route' in legacy ? legacy.route : undefined;
  if (route?.name === 'cancel' || route?.name === 'subscribe') return toTask(request, route.taskId);
  const sends = route?.name === 'send' || route?.name === 'stream';
  const jsonRpc = path === '/' && request.method === 'POST';
  if (!sends && !jsonRpc) return front;

  const declared = Number(request.headers.get('Content-Length') ?? 0);
  if (declared > maxBodyBytes) return front;
  const text = await request.text();
  const again = new Request(request, { body: text });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'front', request: again };
  }
  if (sends) return toTask(again, messageTaskId(body) ?? crypto.randomUUID());
  const call = record(body);
  const method = typeof call?.method === 'string' ? call.method : undefined;
  const params = record(call?.params);
  if (method && SEND_METHODS.has(method)) return toTask(again, messageTaskId(params) ?? crypto.randomUUID());
  if (method && TASK_METHODS.has(method)) {
    const taskId = taskIdOf(params);
    if (taskId) return toTask(again, taskId);
  }
  return { kind: 'front', request: again };
}

function toTask(request: Request, taskId: string): RequestTarget {
  const headers = new Headers(request.headers);
  headers.set(TASK_ID_HEADER, taskId);
  return { kind: 'task', taskId, request: new Request(request, { headers }) };
}

/** The path under the agent's base: `/agents/{id}/x` and the default agent's `/x` both give `/x`. */
function agentRelativePath(pathname: string): string {
  const under = /^\/agents\/[^/]+(\/.*)?$/.exec(pathname);
  const path = (under ? (under[1] ?? '/') : pathname).replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/** A path segment decoded; undefined when its escapes are malformed (the front's router then answers it). */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function messageTaskId(holder: unknown): string | undefined {
  const message = record(record(holder)?.message);
  const taskId = message?.taskId ?? message?.task_id;
  return typeof taskId === 'string' && taskId !== '' ? taskId : undefined;
}

/** `id` (v0.3, v1.0), or a v1.0 resource name `tasks/{id}`. */
function taskIdOf(params: Record<string, unknown> | undefined): string | undefined {
  if (typeof params?.id === 'string' && params.id !== '') return params.id;
  const name = typeof params?.name === 'string' ? /^tasks\/([^/]+)$/.exec(params.name) : null;
  return name?.[1];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
