/** /metrics on a real gateway: each family moves when its event happens, labelled by route pattern, never raw path. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, collect, startTestBed, textMessage, type TestBed } from '../support/gateway.ts';
import { sample } from '../support/prometheus.ts';

describe('/metrics', () => {
  let bed: TestBed;
  const adminToken = 'metrics-admin-token-0123456789';

  beforeAll(async () => {
    bed = await startTestBed({ config: { adminToken } });
  });
  afterAll(() => bed.close());

  const scrape = async () => {
    const response = await fetch(`${bed.gateway.url}/metrics`, { headers: { Authorization: `Bearer ${adminToken}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it('wants the admin token when one is configured', async () => {
    const anonymous = await fetch(`${bed.gateway.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await fetch(`${bed.gateway.url}/metrics`, {
      headers: { Authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
  });

  it('counts requests by route pattern, tasks by state and agent, Logos messages and open streams', async () => {
    const before = await scrape();
    const client = await clientFor(`${bed.gateway.url}/agents/echo`);
    const task = (await client.sendMessage(textMessage('count me'))) as { id: string };
    await fetch(`${bed.gateway.url}/agents/echo/tasks/${task.id}`);
    const events = await collect(client.sendMessageStream(textMessage('stream me')));
    expect(events.length).toBeGreaterThan(0);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('logos_a2a_http_requests_total', { route: '/agents/{agentId}', method: 'POST', status: '200' })).toBe(
      2,
    );
    expect(
      delta('logos_a2a_http_requests_total', {
        route: '/agents/{agentId}/tasks/{taskId}',
        method: 'GET',
        status: '200',
      }),
    ).toBe(1);
    expect(after).not.toContain(task.id);
    expect(delta('logos_a2a_http_request_duration_seconds_count', { route: '/agents/{agentId}', method: 'POST' })).toBe(
      2,
    );
    expect(delta('logos_a2a_task_states_total', { agent: 'echo', state: 'completed' })).toBe(2);
    // Each task: the request out, its replies in.
    expect(delta('logos_a2a_logos_messages_total', { direction: 'out' })).toBeGreaterThanOrEqual(2);
    expect(delta('logos_a2a_logos_messages_total', { direction: 'in' })).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'logos_a2a_open_streams')).toBe(sample(before, 'logos_a2a_open_streams'));
    // The memory transport has no peers to count: no sample rather than a made-up number.
    expect(after).not.toMatch(/^logos_a2a_logos_peers\{/m);
    for (const family of [
      'logos_a2a_payments_total',
      'logos_a2a_refunds_total',
      'logos_a2a_push_deliveries_total',
      'logos_a2a_lease_takeovers_total',
      'logos_a2a_rate_limited_total',
    ])
      expect(after).toContain(`# TYPE ${family} counter`);
  });

  it('labels a path no route has as unmatched', async () => {
    const before = await scrape();
    const missing = await fetch(`${bed.gateway.url}/no/such/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    const after = await scrape();
    const labels = { route: 'unmatched', method: 'GET', status: '404' };
    expect(
      sample(after, 'logos_a2a_http_requests_total', labels) - sample(before, 'logos_a2a_http_requests_total', labels),
    ).toBe(1);
  });
});
