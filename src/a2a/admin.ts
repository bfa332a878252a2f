/**
 * The operator's API: tasks held above the spending limits, approved or rejected by hand. Bearer-token protected;
 * disabled when no token is configured. Not for browsers on other origins: no response here carries CORS headers
 * (and preflights under /admin are granted nothing, responses.ts).
 */
import type { Hono } from 'hono';
import type { TaskEngine } from '../bridge/task-engine.ts';
import type { TaskPayments } from '../bridge/task-payments.ts';
import type { ApprovalStatus } from '../store/payment-store.ts';
import { bearerToken, sameDigest, secretDigest } from './bearer.ts';
import { httpError as corsHttpError, jsonResponse as corsJsonResponse } from './responses.ts';

const httpError = (status: number, name: string, message: string, headers: Record<string, string> = {}) =>
  corsHttpError(status, name, message, headers, 'none');
const jsonResponse = (json: unknown, status = 200) => corsJsonResponse(json, status, {}, 'none');

export interface AdminOptions {
  token: string | undefined;
  engine: TaskEngine;
  /** The gateway's payments; absent when no payment rail is configured. */
  payments: TaskPayments | undefined;
}

const STATUSES = new Set<ApprovalStatus>(['pending', 'approved', 'rejected', 'expired']);

export function mountAdmin(app: Hono, options: AdminOptions): void {
  const token = options.token === undefined ? undefined : secretDigest(options.token);
  app.use('/admin/*', async (c, next) => {
    if (!token) return httpError(404, 'NOT_FOUND', 'The admin API is off; set LOGOS_A2A_ADMIN_TOKEN to turn it on.');
    const presented = bearerToken(c.req.header('authorization'));
    if (presented === undefined || !sameDigest(secretDigest(presented), token)) {
      return httpError(401, 'UNAUTHENTICATED', 'Send the admin token as Authorization: Bearer <token>.', {
        'WWW-Authenticate': 'Bearer',
      });
    }
    if (!options.payments)
      return httpError(404, 'NOT_FOUND', 'No payment rail is configured, so nothing ever waits for approval.');
    await next();
  });

  app.get('/admin/approvals', async (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !STATUSES.has(status as ApprovalStatus)) {
      return httpError(400, 'INVALID_ARGUMENT', `status must be one of ${[...STATUSES].join(', ')}.`);
    }
    return jsonResponse({ approvals: await options.payments!.approvals(status as ApprovalStatus | undefined) });
  });

  for (const verdict of ['approve', 'reject'] as const) {
    app.post(`/admin/approvals/:taskId/${verdict}`, async (c) => {
      const taskId = c.req.param('taskId');
      const approval = await options.payments!.approval(taskId);
      if (!approval) return httpError(404, 'NOT_FOUND', `No approval is asked for task ${taskId}.`);
      if (approval.status !== 'pending')
        return httpError(409, 'FAILED_PRECONDITION', `Task ${taskId}'s approval is already ${approval.status}.`);
      if (!(await options.engine.decideApproval(taskId, verdict === 'approve'))) {
        return httpError(409, 'FAILED_PRECONDITION', `Task ${taskId} no longer waits for approval.`);
      }
      return jsonResponse({ approval: await options.payments!.approval(taskId) });
    });
  }
}
