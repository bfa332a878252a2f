import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { it } from 'vitest';
import { startTestBed } from '../support/gateway.ts';
it('x', async () => {
  const bed = await startTestBed();
  const port = new URL(bed.gateway.url).port;
  for (const path of ['/', '/agents/echo']) {
    const { stdout } = await promisify(execFile)('python3', ['/tmp/edges-run/client.py', port, path]);
    console.log(path, stdout);
  }
  await bed.close();
}, 30000);
