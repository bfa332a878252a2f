/**
 * The route pattern of a request path (`/agents/{agentId}/tasks/{taskId}`), the label HTTP metrics and spans carry:
 * the raw path would make a series per task. The patterns are the paths of the OpenAPI document, which a test keeps
 * in step with the routers; a path none of them matches is `unmatched`, so no client can grow the label set.
 */
export const UNMATCHED_ROUTE = 'unmatched';

export type RoutePatterns = (path: string) => string;

export function routePatterns(templates: readonly string[]): RoutePatterns {
  const compiled = templates.map((template) => ({
    template,
    pattern: new RegExp(
      `^${template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('')}/?$`,
    ),
  }));
  // Literal paths win over templates that also match them (`/tasks/{taskId}` against `/tasks`).
  compiled.sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  return (path) => compiled.find(({ pattern }) => pattern.test(path))?.template ?? UNMATCHED_ROUTE;
}
