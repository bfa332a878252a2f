/**
 * The two devnet accounts paid-task tests move money between: the gateway's wallet (genesis account 0) and the
 * agent's account (genesis account 1), the wallet's encrypted key file as an operator configures it, and an agent
 * paid to that account on the devnet.
 */
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { agentPayments, lezRail } from '../../src/gateway/payment-wiring.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { encryptKeyFile, saveKeyFile } from '../../src/lez/wallet-key-file.ts';
import { LogosAgent } from '../../src/logos/agent-runtime.ts';
import type { MemoryNetwork } from '../../src/logos/transports/memory.ts';

export const WALLET = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32));
export const AGENT = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32));

/** Writes WALLET's key file at `path`, encrypted with `passphrase` (a cheap scrypt: tests unlock it often). */
export async function saveWalletKeyFile(path: string, passphrase: string): Promise<void> {
  const file = await encryptKeyFile({ type: 'secret-key', secretKey: WALLET.secretKey }, passphrase, {
    logN: 10,
    r: 8,
    p: 1,
  });
  await saveKeyFile(path, file);
}

/**
 * The shop: its `quick` skill costs `price` and answers at once, paid to AGENT on the devnet at `sequencerUrl`. On
 * `network` as `agent:shop`, not announced: register it with the gateway directly. Not started.
 */
export function devnetShop(network: MemoryNetwork, sequencerUrl: string, price: bigint): LogosAgent {
  return new LogosAgent({
    transport: network.node('agent:shop'),
    announce: false,
    payments: agentPayments(lezRail(sequencerUrl, AGENT, 'prehash-v0.3')),
    card: {
      id: 'shop',
      name: 'Shop',
      description: 'Charges per task.',
      version: '1',
      'x-lez-identity': { account_id: AGENT.account },
      skills: [{ id: 'quick', name: 'Quick', description: '', 'x-lez-price': price.toString() }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:shop' }],
    },
    skills: { quick: (ctx) => `done: ${ctx.text}` },
  });
}
