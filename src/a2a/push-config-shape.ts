/**
 * The shape of a push-notification config as clients send it (v1.0 TaskPushNotificationConfig, ProtoJSON), checked
 * before the SDK's codec, which would coerce a wrong type (a number url, an object token) into a string.
 */
import { z } from 'zod';
import { isPlainObject } from '../json-object.ts';

const MAX_URL_LENGTH = 2048;
const MAX_SECRET_LENGTH = 4096;

const PushConfigShape = z.object({
  tenant: z.string().optional(),
  id: z.string().max(256).optional(),
  taskId: z.string().max(256).optional(),
  url: z.string().min(1).max(MAX_URL_LENGTH),
  token: z.string().max(MAX_SECRET_LENGTH).optional(),
  authentication: z
    .object({ scheme: z.string().min(1).max(64), credentials: z.string().max(MAX_SECRET_LENGTH).optional() })
    .optional(),
});

/** What is wrong with a push config body, naming the field, or undefined when it is usable. */
export function pushConfigProblem(body: unknown): string | undefined {
  if (!isPlainObject(body)) return 'the push notification config must be a JSON object with a url';
  const result = PushConfigShape.safeParse(body);
  if (result.success) return undefined;
  const issue = result.error.issues[0]!;
  return `${issue.path.join('.') || 'config'}: ${issue.message}`;
}
