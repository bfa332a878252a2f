/** `logos-a2a devnet`: a local LEZ sequencer emulator (src/devnet/), for development and tests. */
import { CliFailure, UsageError } from '../errors.ts';
import { portNumber, str, type Command, type Values } from '../command.ts';
import { setFailureContext } from '../failure-context.ts';
import { untilSignal } from '../until-signal.ts';
import { DEFAULT_GAS_LIMIT } from '../../lez/fees.ts';
import { PROTOCOL_PROFILES, type ProtocolProfile } from '../../lez/protocol-profile.ts';

export const devnetCommand: Command = {
  synopsis: '[--port PORT] [--data DIR] [--profile v0.2|lee-v0.3] [--transfer-gas N]',
  summary: 'a local LEZ sequencer emulator with funded accounts',
  help: () => `A local LEZ sequencer emulator on 127.0.0.1, a block every second, funded with the LEZ debug genesis accounts
(their keys are printed: import one with logos-a2a keys import --secret-key-file -). It behaves as a sequencer
built from LEZ main: blocks end with a clock transaction and are hashed under main's prefix. With --profile v0.2
it also takes privacy-preserving (shielded) transactions WITHOUT verifying their risc0 proof, like a sequencer run
with RISC0_DEV_MODE=1: it checks their signatures, nonces, commitments and nullifiers and applies them, so notes
can be read back with getTransaction and getBlock. A real sequencer would refuse such a transaction's fake proof.

Options:
  --port PORT       its port (default: LOGOS_A2A_DEVNET_PORT, else 3040; 0 picks a free one)
  --data DIR        keep the chain in DIR and continue it at the next start; like a real sequencer, a restarted
                    devnet no longer finds earlier transactions by hash (getTransaction), only in their blocks
  --profile P       the protocol: v0.2 (default; the public testnet: no fees, a transfer to an account never
                    initialised is dropped) or lee-v0.3 (fees: getFeeState, signed fee declarations, -3198x errors)
  --transfer-gas N  lee-v0.3: the gas a transfer is metered at (default ${CLI_TRANSFER_GAS}, so that the genesis accounts
                    can pay fees; above a payer's default gas limit, it prints the setting that fits)
  -h, --help        this text

Settings:
  LOGOS_A2A_DEVNET_PORT   its port, when --port is not given
  LOGOS_A2A_DEVNET_HOST   the address it listens on (default 127.0.0.1; 0.0.0.0 in a container)

Ctrl-C or SIGTERM stops it.
`,
  options: {
    port: { type: 'string' },
    data: { type: 'string' },
    profile: { type: 'string' },
    'transfer-gas': { type: 'string' },
  },
  positionals: 0,
  run: runDevnet,
};

/** The devnet's port from an option or a setting (the demo's devnet reads it too): 3040 unless given. */
export function devnetPortSetting(
  value: string | undefined,
  setting: string,
  prefix: string,
  kind: 'option' | 'setting' = 'setting',
): number {
  if (value === undefined || value === '') return 3040;
  const port = portNumber(value);
  if (port === undefined) {
    const message = `${prefix}: ${setting} must be a port number from 0 to 65535, got "${value}"`;
    throw kind === 'option' ? new UsageError(message) : new CliFailure(message);
  }
  return port;
}

async function runDevnet(_positionals: string[], values: Values): Promise<number> {
  const prefix = 'logos-a2a devnet';
  const option = str(values.port);
  const port =
    option !== undefined
      ? devnetPortSetting(option, '--port', prefix, 'option')
      : devnetPortSetting(process.env.LOGOS_A2A_DEVNET_PORT, 'LOGOS_A2A_DEVNET_PORT', prefix);
  setFailureContext({ prefix, portSetting: option !== undefined ? '--port' : 'LOGOS_A2A_DEVNET_PORT / --port' });
  const signalled = untilSignal();
  const dataDir = str(values.data);
  const profile = str(values.profile) ?? 'v0.2';
  if (!(PROTOCOL_PROFILES as readonly string[]).includes(profile))
    throw new UsageError(`${prefix}: --profile is one of ${PROTOCOL_PROFILES.join(', ')}, got "${profile}"`);
  const transferGasOption = str(values['transfer-gas']);
  if (transferGasOption !== undefined && !/^[1-9]\d{0,8}$/.test(transferGasOption))
    throw new UsageError(`${prefix}: --transfer-gas is a whole number of gas from 1, got "${transferGasOption}"`);
  const transferGas = transferGasOption === undefined ? CLI_TRANSFER_GAS : Number(transferGasOption);
  const { startDevnet, DEVNET_GENESIS } = await import('../../devnet/devnet.ts');
  const devnet = await startDevnet({
    port,
    host: process.env.LOGOS_A2A_DEVNET_HOST || '127.0.0.1',
    profile: profile as ProtocolProfile,
    transferGas,
    ...(dataDir ? { dataDir } : {}),
  });
  process.stdout.write(
    [
      `logos-a2a devnet: a local LEZ sequencer (protocol profile ${profile}) at ${devnet.url} (blocks every second${dataDir ? `, chain in ${dataDir}, at block ${devnet.lastBlockId()}` : ''})`,
      'Funded genesis accounts (the LEZ debug keys; import one with logos-a2a keys import --secret-key-file -):',
      ...DEVNET_GENESIS.map((g) => `  ${g.account}  ${g.balance}  secret key ${g.secretKeyHex}`),
      ...(profile === 'lee-v0.3' ? feeSettingsLines(transferGas) : []),
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  // Started by a demo (devnet-process.ts): say where it listens, and stop when the parent is gone.
  if (process.send) {
    process.send({ kind: 'devnet-ready', url: devnet.url });
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  }
  await signalled;
  await devnet.stop();
  return 0;
}

/**
 * The gas the CLI's devnet meters a transfer at. The debug genesis accounts hold 10,000 and 20,000: with this, and a
 * payer's default gas limit (lez/fees.ts), a transfer's fee reserve (gas and bytes at the next block's ceiling) stays
 * a few thousand, which they can pay.
 */
const CLI_TRANSFER_GAS = 100;

/**
 * What a gateway (or paid agent) paying here sets: nothing while the default gas limit covers a transfer (the fee cap
 * follows from it, docs/lez.md §10.5); a gas limit that does, when --transfer-gas is above it.
 */
function feeSettingsLines(transferGas: number): string[] {
  if (transferGas <= DEFAULT_GAS_LIMIT)
    return [
      `Paying here (fees on): no settings needed; a payer's default gas limit (${DEFAULT_GAS_LIMIT}) covers a transfer, metered at ${transferGas} gas`,
    ];
  return [
    `Paying here (fees on): LOGOS_A2A_PAYMENTS_GAS_LIMIT=${transferGas}`,
    `  (a transfer is metered at ${transferGas} gas, above a payer's default gas limit of ${DEFAULT_GAS_LIMIT})`,
  ];
}
