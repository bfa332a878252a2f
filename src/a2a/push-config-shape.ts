/**
 * The shape of a push-notification config as clients send it (v1.0 TaskPushNotificationConfig, ProtoJSON), checked
 * before the SDK's codec, which would coerce a wrong type (a number url, an object token) into a string.
 */
import { z } from 'zod';
import { isPlainObject } from '../json-object.ts';

const PushConfigShape = z.object({
  tenant: z.string().optional(),
  id: z.string().max(256).optional(),
  taskId: z.string().optional(),
  url: z.string().min(1),
  token: z.string().optional(),
  // Lengths are the push service's to check, alike on every binding.
  authentication: z.object({ scheme: z.string().min(1), credentials: z.string().optional() }).optional(),
});

/** What is wrong with a push config body, naming the field, or undefined when it is usable. */
export function pushConfigProblem(body: unknown): string | undefined {
  if (!isPlainObject(body)) return 'the push notification config must be a JSON object with a url';
  const result = PushConfigShape.safeParse(body);
  if (result.success) return undefined;
  const issue = result.error.issues[0]!;
  return `${issue.path.join('.') || 'config'}: ${issue.message}`;
}
