/**
 * The Worker's gateway: the same Hono app and task engine as the Node gateway's (gateway/gateway.ts), over D1 and
 * a node's REST API. The front Worker and each TaskObject build one; only a TaskObject's engine drives a task.
 */
import type { Hono } from 'hono';
import { createApp } from '../a2a/app.ts';
import { ApiKeys } from '../a2a/api-keys.ts';
import { JWKS_PATH } from '../a2a/card-jws.ts';
import { TaskEngine } from '../bridge/task-engine.ts';
import type { AgentDirectory } from '../logos/directory.ts';
import type { LogosTransport } from '../logos/transport.ts';
import type { TaskStore } from '../store/task-store.ts';
import openApiDocument from '../../openapi/openapi.json' with { type: 'json' };
import { TaskPayments } from '../bridge/task-payments.ts';
import { spendingRules } from '../gateway/payment-wiring.ts';
import { D1PaymentStore } from '../store/d1/payment-store.ts';
import { walletFeeCap, walletPayer } from './wallet-client.ts';
import type { WorkerEnv, WorkerSettings } from './worker-env.ts';

export interface WorkerApp {
  app: Hono;
  engine: TaskEngine;
}

export function workerApp(input: {
  settings: WorkerSettings;
  directory: AgentDirectory;
  store: TaskStore;
  transport: LogosTransport;
  /** The origin the request came to, when PUBLIC_BASE_URL does not say. */
  origin: string;
  newTaskId?: () => string;
  /** Paying agents, when the Worker pays (taskPayments). */
  payments?: TaskPayments;
}): WorkerApp {
  const { config, cardSigningKey } = input.settings;
  const publicBaseUrl = config.publicBaseUrl ?? input.origin;
  const engine = new TaskEngine({
    store: input.store,
    transport: input.transport,
    agentTimeoutMs: config.agentTimeoutMs,
    cancelTimeoutMs: config.cancelTimeoutMs,
    approvalTimeoutMs: config.payments.approvalTimeoutMs,
    ...(input.payments ? { payments: input.payments } : {}),
    ...(input.newTaskId ? { newTaskId: input.newTaskId } : {}),
  });
  const app = createApp({
    directory: input.directory,
    engine,
    store: input.store,
    publicBaseUrl,
    defaultAgentId: config.defaultAgent,
    cardShape: config.cardShape,
    maxBodyBytes: config.maxBodyBytes,
    sseHeartbeatMs: config.sseHeartbeatMs,
    ...(config.adminToken ? { adminToken: config.adminToken } : {}),
    ...(cardSigningKey
      ? { cardSigningKey: { alg: 'ES256', secretKey: cardSigningKey, jku: `${publicBaseUrl}${JWKS_PATH}` } }
      : {}),
    apiKeys: new ApiKeys(config.apiKeys),
    ...(input.payments ? { payments: input.payments } : {}),
    openApiDocument,
  });
  return { app, engine };
}

/**
 * Paying agents from the Worker's wallet, as the Node gateway does (gateway/gateway.ts): the spending gate over
 * every payment in D1, one record per task, the WalletObject to sign. `taskId`: the object's task, which alone it
 * pays and settles, its gate counting the fee cap the wallet states beside the price; none in the front Worker,
 * which reads payments and approvals only (and so does not ask the wallet).
 */
export async function taskPayments(
  env: WorkerEnv,
  settings: WorkerSettings,
  taskId?: string,
): Promise<TaskPayments | undefined> {
  const { config, payments } = settings;
  if (!payments) return undefined;
  const feeCap = taskId === undefined ? undefined : await walletFeeCap(env, config.payments.maxFee);
  return new TaskPayments({
    payer: walletPayer(env, payments, taskId, feeCap),
    store: new D1PaymentStore(env.DB, taskId === undefined ? {} : { onlyTask: taskId }),
    network: payments.sequencerUrl,
    ...spendingRules(config),
  });
}
