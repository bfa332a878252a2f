// CPU per request through gateway.app.request (no sockets), 32 in flight, N requests after warm-up; prints µs/request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const root = process.cwd();
const { benchGatewayConfig, sendMessageBody, ECHO_TEXT, A2A_JSON_HEADERS } = await import(join(root, 'bench/support.ts'));
const { startGateway } = await import(join(root, 'src/gateway/gateway.ts'));
const folder = mkdtempSync(join(tmpdir(), 'drive-'));
const config = await benchGatewayConfig(folder, { agents: [{ builtin: 'echo' }], transport: { kind: 'memory' }, ...(process.env.MEM ? { database: ':memory:' } : {}) });
const gw = await startGateway(config);
let n = 0;
async function one() {
  n++;
  const body = sendMessageBody(n, { messageId: `m-${n}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: ECHO_TEXT }] });
  const res = await gw.app.request('http://127.0.0.1/', { method: 'POST', headers: A2A_JSON_HEADERS, body });
  const text = await res.text();
  if (!text.includes('TASK_STATE_COMPLETED')) throw new Error(text);
}
async function run(count: number) { let left = count; await Promise.all(Array.from({ length: 32 }, async () => { while (left-- > 0) await one(); })); }
await run(Number(process.env.WARM ?? 5000));
const rounds = Number(process.env.ROUNDS ?? 5), N = Number(process.env.N ?? 5000);
const res: number[] = [];
for (let r = 0; r < rounds; r++) {
  const c0 = process.threadCpuUsage(); await run(N); const c1 = process.threadCpuUsage(c0);
  res.push((c1.user + c1.system) / N);
}
const inOrder = res.map((x) => x.toFixed(0)).join(" "); res.sort((a, b) => a - b);
console.log(process.env.LABEL ?? "", "µs/req in order", inOrder, 'median', res[Math.floor(res.length / 2)]!.toFixed(0));
await gw.stop(); rmSync(folder, { recursive: true, force: true });
