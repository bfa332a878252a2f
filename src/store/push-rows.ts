/** Push config and outbox rows as both SQL stores keep them (same columns), and the records they hold. */
import type { OutboxDelivery, PushConfigRecord, PushProtocolVersion } from './push-store.ts';

export interface ConfigRow {
  task_id: string;
  config_id: string;
  url: string;
  token: string | null;
  auth_scheme: string | null;
  auth_credentials: string | null;
  protocol_version: PushProtocolVersion;
  owner: string | null;
  created_at: string;
}

export interface OutboxRow {
  seq: number;
  event_id: string;
  task_id: string;
  config_id: string;
  url: string;
  headers: string;
  body: string;
  state: OutboxDelivery['state'];
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: string;
}

export function configFromRow(row: ConfigRow): PushConfigRecord {
  return {
    taskId: row.task_id,
    id: row.config_id,
    url: row.url,
    ...(row.token !== null ? { token: row.token } : {}),
    ...(row.auth_scheme !== null
      ? {
          authentication: {
            scheme: row.auth_scheme,
            ...(row.auth_credentials !== null ? { credentials: row.auth_credentials } : {}),
          },
        }
      : {}),
    protocolVersion: row.protocol_version,
    ...(row.owner !== null ? { owner: row.owner } : {}),
    createdAt: row.created_at,
  };
}

export function deliveryFromRow(row: OutboxRow): OutboxDelivery {
  return {
    seq: row.seq,
    eventId: row.event_id,
    taskId: row.task_id,
    configId: row.config_id,
    url: row.url,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    createdAt: row.created_at,
  };
}
