/**
 * The two devnet accounts paid-task tests move money between: the gateway's wallet (genesis account 0) and the
 * agent's account (genesis account 1), and the wallet's encrypted key file as an operator configures it.
 */
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { signingKeyFromSecretKey } from '../../src/lez/keys.ts';
import { encryptKeyFile, saveKeyFile } from '../../src/lez/wallet-key-file.ts';

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
