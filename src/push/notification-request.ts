/**
 * What one webhook receives for one event: the SDK's serializer for the version the config was registered over
 * (v1.0: the `StreamResponse` JSON as application/a2a+json; v0.3: the bare v0.3 object as application/json), and the
 * headers the SDK's own sender uses, plus an event id.
 */
import type { StreamResponse, Task } from '@a2a-js/sdk';
import { V1PushNotificationSerializer, type PushNotificationSerializer } from '@a2a-js/sdk/server';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import type { PushConfigRecord, PushProtocolVersion } from '../store/push-store.ts';

/**
 * Identifies the event; the same value for every attempt and every webhook notified of it, so that a receiver drops
 * the duplicates at-least-once delivery can produce.
 */
const EVENT_ID_HEADER = 'a2a-notification-id';
const TOKEN_HEADER = 'x-a2a-notification-token';
/** The headers that carry the config's secrets: they never follow a redirect to another origin. */
export const CREDENTIAL_HEADERS = ['authorization', TOKEN_HEADER];

const SERIALIZERS: Record<PushProtocolVersion, PushNotificationSerializer> = {
  '1.0': new V1PushNotificationSerializer(),
  '0.3': new V03PushNotificationSerializer(),
};

/**
 * The request body and headers. `task` is the task as it stands after the event: a v0.3 webhook receives the whole
 * task for status and artifact updates, as the SDK sends it (v0.3 push notifications carry the Task).
 */
export function notificationRequest(
  config: PushConfigRecord,
  event: StreamResponse,
  task: Task,
  eventId: string,
): { headers: Record<string, string>; body: string } {
  const { body, contentType } = SERIALIZERS[config.protocolVersion].serialize(event, task);
  const headers: Record<string, string> = { 'content-type': contentType, [EVENT_ID_HEADER]: eventId };
  // Both when both are given (the SDK sends only the Authorization then): the token lets the receiver check the
  // notification is for it, independently of how the gateway authenticates.
  if (config.token) headers[TOKEN_HEADER] = config.token;
  if (config.authentication?.scheme && config.authentication.credentials) {
    headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
  }
  return { headers, body };
}
