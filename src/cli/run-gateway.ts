/** What `logos-a2a serve` and `logos-a2a demo` share: start the gateway, print its banner, stop at a signal. */
import { SERVE_SETTINGS, checkMultiaddrs } from './errors.ts';
import { str, type Values } from './command.ts';
import { devnetPortSetting } from './commands/devnet.ts';
import { setFailureContext } from './failure-context.ts';
import { startBanner } from './start-banner.ts';
import { untilSignal } from './until-signal.ts';
import { loadConfig, type GatewayConfig } from '../gateway/config.ts';
import type { Gateway } from '../gateway/gateway.ts';

export async function runGateway(command: 'demo' | 'serve', values: Values): Promise<number> {
  const prefix = `logos-a2a ${command}`;
  const file = str(values.config) ?? process.env.LOGOS_A2A_CONFIG;
  const devnetPort =
    command === 'demo'
      ? devnetPortSetting(process.env.LOGOS_A2A_DEVNET_PORT, 'LOGOS_A2A_DEVNET_PORT', prefix)
      : undefined;
  setFailureContext({
    prefix,
    ...SERVE_SETTINGS,
    ...(devnetPort !== undefined ? { ports: [{ port: devnetPort, setting: 'LOGOS_A2A_DEVNET_PORT' }] } : {}),
  });
  const check = (config: GatewayConfig) => checkTransportSettings(config, prefix);
  const signalled = untilSignal();
  let stop: () => Promise<void>;
  let gateway: Gateway;
  if (command === 'serve') {
    const config = loadConfig({ ...(file ? { file } : {}) });
    check(config);
    const { startGateway } = await import('../gateway/gateway.ts');
    gateway = await startGateway(config);
    stop = () => gateway.stop();
    process.stdout.write(startBanner(gateway, command));
  } else {
    const { startDemo } = await import('./demo.ts');
    const demo = await startDemo(file, { devnetPort: devnetPort!, checkConfig: check });
    gateway = demo.gateway;
    stop = () => demo.stop();
    process.stdout.write(startBanner(gateway, command));
    process.stdout.write(demo.paymentsHelp);
  }
  await signalled;
  process.stdout.write('\nStopping… (a second Ctrl-C stops at once)\n');
  await stop();
  return 0;
}

/** Multiaddrs are checked before anything starts, so a typo is named rather than thrown from deep in libp2p. */
function checkTransportSettings(config: GatewayConfig, prefix: string): void {
  if (config.transport.kind === 'memory' || config.transport.kind === 'nwaku-rest') return;
  if (config.transport.kind === 'waku') {
    checkMultiaddrs(config.transport.listen, SERVE_SETTINGS.listenSetting, prefix, 'setting');
  }
  checkMultiaddrs(config.transport.peers, SERVE_SETTINGS.peerSetting, prefix, 'setting');
}
