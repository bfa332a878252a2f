/**
 * The SDK's echo server (bench/sdk-echo.ts) as a process of its own, the remote agent behind the plain-HTTP proxy
 * of bench/targets.ts. Prints `listening <url>`; stops on SIGTERM.
 */
import { startSdkEcho } from './sdk-echo.ts';

const running = await startSdkEcho();
console.log(`listening ${running.url}`);
process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
