import { describe, expect, it } from 'vitest';
import { formatAccountId } from '../../src/lez/account-id.ts';
import {
  derivePrivateKeys,
  nullifierPublicKey,
  nullifierSecretKey,
  privateChild,
  privateKeysFromSpendingKey,
  privateRoot,
  viewingPublicKey,
  viewingSecretKey,
} from '../../src/lez/private-keys.ts';

const bytes = (values: number[]) => Uint8Array.from(values);

/** docs/lez.md §4.2–4.3 (private side); vectors from LEZ key_protocol/src/key_management/key_tree/keys_private.rs. */
const SEED = bytes([
  252, 56, 204, 83, 232, 123, 209, 188, 187, 167, 39, 213, 71, 39, 58, 65, 125, 134, 255, 49, 43, 108, 92, 53, 173, 164,
  94, 142, 150, 74, 21, 163, 43, 144, 226, 87, 199, 18, 129, 223, 176, 198, 5, 150, 157, 70, 210, 254, 14, 105, 89, 191,
  246, 27, 52, 170, 56, 114, 39, 38, 118, 197, 205, 225,
]);

describe('private key tree vectors (keys_private.rs)', () => {
  it('master_key_generation', () => {
    const root = privateRoot(SEED);
    expect(Array.from(root.secretSpendingKey)).toEqual([
      246, 79, 26, 124, 135, 95, 52, 51, 201, 27, 48, 194, 2, 144, 51, 219, 245, 128, 139, 222, 42, 195, 105, 33, 115,
      97, 186, 0, 97, 14, 218, 191,
    ]);
    expect(Array.from(root.chainCode)).toEqual([
      56, 114, 70, 249, 67, 169, 206, 9, 192, 11, 180, 168, 149, 129, 42, 95, 43, 157, 130, 111, 13, 5, 195, 75, 20,
      255, 162, 85, 40, 251, 8, 168,
    ]);
    expect(Array.from(root.nullifierSecretKey)).toEqual([
      154, 102, 103, 5, 34, 235, 227, 13, 22, 182, 226, 11, 7, 67, 110, 162, 99, 193, 174, 34, 234, 19, 222, 2, 22, 12,
      163, 252, 88, 11, 0, 163,
    ]);
    expect(Array.from(root.nullifierPublicKey)).toEqual([
      7, 123, 125, 191, 233, 183, 201, 4, 20, 214, 155, 210, 45, 234, 27, 240, 194, 111, 97, 247, 155, 113, 122, 246,
      192, 0, 70, 61, 76, 71, 70, 2,
    ]);
    expect(Array.from(root.viewingSecretKey)).toEqual([
      155, 90, 54, 75, 228, 130, 68, 201, 129, 251, 180, 195, 250, 64, 34, 230, 241, 204, 216, 50, 149, 156, 10, 67,
      208, 74, 9, 10, 47, 59, 50, 202,
    ]);
    expect(Array.from(root.viewingPublicKey)).toEqual([
      2, 191, 99, 102, 114, 40, 131, 109, 166, 8, 222, 186, 107, 29, 156, 106, 206, 96, 127, 80, 170, 66, 217, 79, 38,
      80, 11, 74, 147, 123, 221, 159, 166,
    ]);
  });

  it('child_keys_generation: cci = 42, as a child and as the path /42', () => {
    const child = privateChild(privateRoot(SEED), 42);
    expect(derivePrivateKeys(SEED, [42])).toEqual(child);
    expect(Array.from(child.chainCode)).toEqual([
      27, 73, 133, 213, 214, 63, 217, 184, 164, 17, 172, 140, 223, 95, 255, 157, 11, 0, 58, 53, 82, 147, 121, 120, 199,
      50, 30, 28, 103, 24, 121, 187,
    ]);
    expect(Array.from(child.nullifierSecretKey)).toEqual([
      124, 61, 40, 92, 33, 135, 3, 41, 200, 234, 3, 69, 102, 184, 57, 191, 106, 151, 194, 192, 103, 132, 141, 112, 249,
      108, 192, 117, 24, 48, 70, 216,
    ]);
    expect(Array.from(child.nullifierPublicKey)).toEqual([
      116, 231, 246, 189, 145, 240, 37, 59, 219, 223, 216, 246, 116, 171, 223, 55, 197, 200, 134, 192, 221, 40, 218,
      167, 239, 5, 11, 95, 147, 247, 162, 226,
    ]);
    expect(Array.from(child.viewingSecretKey)).toEqual([
      33, 155, 68, 60, 102, 70, 47, 105, 194, 129, 44, 26, 143, 198, 44, 244, 185, 31, 236, 252, 205, 89, 138, 107, 39,
      38, 154, 73, 109, 166, 41, 114,
    ]);
    expect(Array.from(child.viewingPublicKey)).toEqual([
      2, 78, 213, 113, 117, 105, 162, 248, 175, 68, 128, 232, 106, 204, 208, 159, 11, 78, 48, 244, 127, 112, 46, 0, 93,
      184, 1, 77, 132, 160, 75, 152, 88,
    ]);
  });
});

/**
 * docs/lez.md §2.6, §4.4: the debug wallet config's private accounts. Their key chains (LEZ wallet/configs/debug/
 * wallet_config.json) give ssk → nsk/vsk (index 0) → npk/vpk → the account ids the config lists.
 */
describe('debug config private key chains', () => {
  const chains = [
    {
      account: 'GoKB6RuE6pT2KxCqDXQqiCuuuYZaGdJNfctzyqRdGBCy',
      ssk: [
        75, 231, 144, 165, 5, 36, 183, 237, 190, 227, 238, 13, 132, 39, 114, 228, 172, 82, 119, 164, 233, 132, 130, 224,
        201, 90, 200, 156, 108, 199, 56, 22,
      ],
      nsk: [
        212, 34, 166, 184, 182, 77, 127, 176, 147, 68, 148, 190, 41, 244, 8, 202, 51, 10, 44, 43, 93, 41, 229, 130, 54,
        96, 198, 242, 10, 227, 119, 1,
      ],
      vsk: [
        205, 10, 5, 19, 148, 98, 49, 19, 251, 186, 247, 216, 75, 53, 184, 36, 84, 87, 236, 205, 105, 217, 213, 21, 61,
        183, 133, 174, 121, 115, 51, 203,
      ],
      npk: [
        122, 213, 113, 8, 118, 179, 235, 94, 5, 219, 131, 106, 246, 253, 14, 204, 65, 93, 0, 198, 100, 108, 57, 48, 6,
        65, 183, 31, 136, 86, 82, 165,
      ],
      vpk: [
        3, 165, 235, 215, 77, 4, 19, 45, 0, 27, 18, 26, 11, 226, 126, 174, 144, 167, 160, 199, 14, 23, 49, 163, 49, 138,
        129, 229, 79, 9, 15, 234, 30,
      ],
    },
    {
      account: 'BCdMnPkdH2DrVhe7cGdawkPU9iapsSboRvJpWX8pWnLq',
      ssk: [
        107, 49, 136, 174, 162, 107, 250, 105, 252, 146, 166, 197, 163, 132, 153, 222, 68, 17, 87, 101, 22, 113, 88, 97,
        180, 203, 139, 18, 28, 62, 51, 149,
      ],
      nsk: [
        219, 5, 233, 185, 144, 150, 100, 58, 97, 5, 57, 163, 110, 46, 241, 216, 155, 217, 100, 51, 184, 21, 225, 148,
        198, 9, 121, 239, 232, 98, 22, 218,
      ],
      vsk: [
        35, 105, 230, 121, 218, 177, 21, 55, 83, 80, 95, 235, 161, 83, 11, 221, 67, 83, 1, 218, 49, 242, 53, 29, 26,
        171, 170, 144, 49, 233, 159, 48,
      ],
      npk: [
        33, 68, 229, 154, 12, 235, 210, 229, 236, 144, 126, 122, 58, 107, 36, 58, 243, 128, 174, 197, 141, 137, 162,
        190, 155, 234, 94, 156, 218, 34, 13, 221,
      ],
      vpk: [
        3, 122, 7, 137, 250, 84, 10, 85, 3, 15, 134, 250, 205, 40, 126, 211, 14, 120, 15, 55, 56, 214, 72, 243, 83, 17,
        124, 242, 251, 184, 174, 150, 83,
      ],
    },
  ];

  it.each(chains)('$account', (chain) => {
    const nsk = nullifierSecretKey(bytes(chain.ssk), 0);
    const vsk = viewingSecretKey(bytes(chain.ssk), 0);
    expect(Array.from(nsk)).toEqual(chain.nsk);
    expect(Array.from(vsk)).toEqual(chain.vsk);
    expect(Array.from(nullifierPublicKey(nsk))).toEqual(chain.npk);
    expect(Array.from(viewingPublicKey(vsk))).toEqual(chain.vpk);
    // The whole chain, secret spending key to account id, lands on the account the config names.
    const keys = privateKeysFromSpendingKey(bytes(chain.ssk), 0, new Uint8Array(32), []);
    expect(formatAccountId(keys.accountId)).toBe(chain.account);
  });
});
