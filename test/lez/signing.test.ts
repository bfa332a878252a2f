import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, toHex } from '../../src/lez/bytes.ts';
import { isValidXOnlyPublicKey, xOnlyPublicKey } from '../../src/lez/public-key.ts';
import {
  publicMessageHash,
  schnorrSign,
  schnorrVerify,
  signingPayload,
  signPublicMessage,
  verifyPublicTransactionSignatures,
  verifyWitness,
} from '../../src/lez/signing.ts';
import { encodePublicMessage, nativeTransferInstruction, type PublicMessage } from '../../src/lez/transaction.ts';

/**
 * The official BIP-340 vectors (bitcoin/bips bip-0340/test-vectors.csv), which LEZ tests its signatures against
 * (docs/lez.md §3, `nssa/src/signature/bip340_test_vectors.rs`). LEZ keeps 0–4 and 6–13; 5 and 14 (invalid public
 * keys) and 15–18 (messages not 32 bytes long) are commented out there, but 5/14 are covered by its PublicKey
 * tests and 15–18 are exactly the raw-borsh mode's case (variable-length messages), so all 19 are checked here.
 */
interface Vector {
  index: number;
  secretKey?: string;
  publicKey: string;
  auxRand?: string;
  message: string;
  signature: string;
  valid: boolean;
}

const MSG = '243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89';
const PK1 = 'DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659';
const SK15 = '0340034003400340034003400340034003400340034003400340034003400340';
const PK15 = '778CAA53B4393AC467774D09497A87224BF9FAB6F6E68B23086497324D6FD117';
const ZERO32 = '00'.repeat(32);

const VECTORS: Vector[] = [
  {
    index: 0,
    secretKey: '0000000000000000000000000000000000000000000000000000000000000003',
    publicKey: 'F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9',
    auxRand: ZERO32,
    message: ZERO32,
    signature:
      'E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA821525F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0',
    valid: true,
  },
  {
    index: 1,
    secretKey: 'B7E151628AED2A6ABF7158809CF4F3C762E7160F38B4DA56A784D9045190CFEF',
    publicKey: PK1,
    auxRand: '0000000000000000000000000000000000000000000000000000000000000001',
    message: MSG,
    signature:
      '6896BD60EEAE296DB48A229FF71DFE071BDE413E6D43F917DC8DCF8C78DE33418906D11AC976ABCCB20B091292BFF4EA897EFCB639EA871CFA95F6DE339E4B0A',
    valid: true,
  },
  {
    index: 2,
    secretKey: 'C90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B14E5C9',
    publicKey: 'DD308AFEC5777E13121FA72B9CC1B7CC0139715309B086C960E18FD969774EB8',
    auxRand: 'C87AA53824B4D7AE2EB035A2B5BBBCCC080E76CDC6D1692C4B0B62D798E6D906',
    message: '7E2D58D8B3BCDF1ABADEC7829054F90DDA9805AAB56C77333024B9D0A508B75C',
    signature:
      '5831AAEED7B44BB74E5EAB94BA9D4294C49BCF2A60728D8B4C200F50DD313C1BAB745879A5AD954A72C45A91C3A51D3C7ADEA98D82F8481E0E1E03674A6F3FB7',
    valid: true,
  },
  {
    index: 3,
    secretKey: '0B432B2677937381AEF05BB02A66ECD012773062CF3FA2549E44F58ED2401710',
    publicKey: '25D1DFF95105F5253C4022F628A996AD3A0D95FBF21D468A1B33F8C160D8F517',
    auxRand: 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF',
    message: 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF',
    signature:
      '7EB0509757E246F19449885651611CB965ECC1A187DD51B64FDA1EDC9637D5EC97582B9CB13DB3933705B32BA982AF5AF25FD78881EBB32771FC5922EFC66EA3',
    valid: true,
  },
  {
    index: 4,
    publicKey: 'D69C3509BB99E412E68B0FE8544E72837DFA30746D8BE2AA65975F29D22DC7B9',
    message: '4DF3C3F68FCC83B27E9D42C90431A72499F17875C81A599B566C9889B9696703',
    signature:
      '00000000000000000000003B78CE563F89A0ED9414F5AA28AD0D96D6795F9C6376AFB1548AF603B3EB45C9F8207DEE1060CB71C04E80F593060B07D28308D7F4',
    valid: true,
  },
  {
    index: 5, // public key not on the curve
    publicKey: 'EEFDEA4CDB677750A420FEE807EACF21EB9898AE79B9768766E4FAA04A2D4A34',
    message: MSG,
    signature:
      '6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E17776969E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B',
    valid: false,
  },
  {
    index: 6, // has_even_y(R) is false
    publicKey: PK1,
    message: MSG,
    signature:
      'FFF97BD5755EEEA420453A14355235D382F6472F8568A18B2F057A14602975563CC27944640AC607CD107AE10923D9EF7A73C643E166BE5EBEAFA34B1AC553E2',
    valid: false,
  },
  {
    index: 7, // negated message
    publicKey: PK1,
    message: MSG,
    signature:
      '1FA62E331EDBC21C394792D2AB1100A7B432B013DF3F6FF4F99FCB33E0E1515F28890B3EDB6E7189B630448B515CE4F8622A954CFE545735AAEA5134FCCDB2BD',
    valid: false,
  },
  {
    index: 8, // negated s
    publicKey: PK1,
    message: MSG,
    signature:
      '6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E177769961764B3AA9B2FFCB6EF947B6887A226E8D7C93E00C5ED0C1834FF0D0C2E6DA6',
    valid: false,
  },
  {
    index: 9, // sG - eP is infinite
    publicKey: PK1,
    message: MSG,
    signature:
      '0000000000000000000000000000000000000000000000000000000000000000123DDA8328AF9C23A94C1FEECFD123BA4FB73476F0D594DCB65C6425BD186051',
    valid: false,
  },
  {
    index: 10, // sG - eP is infinite (x(inf) = 1)
    publicKey: PK1,
    message: MSG,
    signature:
      '00000000000000000000000000000000000000000000000000000000000000017615FBAF5AE28864013C099742DEADB4DBA87F11AC6754F93780D5A1837CF197',
    valid: false,
  },
  {
    index: 11, // sig[0:32] is not an x coordinate on the curve
    publicKey: PK1,
    message: MSG,
    signature:
      '4A298DACAE57395A15D0795DDBFD1DCB564DA82B0F269BC70A74F8220429BA1D69E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B',
    valid: false,
  },
  {
    index: 12, // sig[0:32] equals the field size
    publicKey: PK1,
    message: MSG,
    signature:
      'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F69E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B',
    valid: false,
  },
  {
    index: 13, // sig[32:64] equals the curve order
    publicKey: PK1,
    message: MSG,
    signature:
      '6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E177769FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141',
    valid: false,
  },
  {
    index: 14, // public key exceeds the field size
    publicKey: 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC30',
    message: MSG,
    signature:
      '6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E17776969E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B',
    valid: false,
  },
  {
    index: 15, // empty message
    secretKey: SK15,
    publicKey: PK15,
    auxRand: ZERO32,
    message: '',
    signature:
      '71535DB165ECD9FBBC046E5FFAEA61186BB6AD436732FCCC25291A55895464CF6069CE26BF03466228F19A3A62DB8A649F2D560FAC652827D1AF0574E427AB63',
    valid: true,
  },
  {
    index: 16, // 1-byte message
    secretKey: SK15,
    publicKey: PK15,
    auxRand: ZERO32,
    message: '11',
    signature:
      '08A20A0AFEF64124649232E0693C583AB1B9934AE63B4C3511F3AE1134C6A303EA3173BFEA6683BD101FA5AA5DBC1996FE7CACFC5A577D33EC14564CEC2BACBF',
    valid: true,
  },
  {
    index: 17, // 17-byte message
    secretKey: SK15,
    publicKey: PK15,
    auxRand: ZERO32,
    message: '0102030405060708090A0B0C0D0E0F1011',
    signature:
      '5130F39A4059B43BC7CAC09A19ECE52B5D8699D1A71E3C52DA9AFDB6B50AC370C4A482B77BF960F8681540E25B6771ECE1E5A37FD80E5A51897C5566A97EA5A5',
    valid: true,
  },
  {
    index: 18, // 100-byte message
    secretKey: SK15,
    publicKey: PK15,
    auxRand: ZERO32,
    message: '99'.repeat(100),
    signature:
      '403B12B0D8555A344175EA7EC746566303321E5DBFA8BE6F091635163ECA79A8585ED3E3170807E7C03B720FC54C7B23897FCBA0E9D0B4A06894CFD249F22367',
    valid: true,
  },
];

const h = (hex: string) => hexToBytes(hex);

describe('BIP-340 test vectors (docs/lez.md §3)', () => {
  it.each(VECTORS.filter((v) => v.secretKey && v.auxRand))(
    'vector $index: derives the public key and signs exactly',
    (v) => {
      expect(toHex(xOnlyPublicKey(h(v.secretKey!)))).toBe(v.publicKey.toLowerCase());
      expect(toHex(schnorrSign(h(v.message), h(v.secretKey!), h(v.auxRand!)))).toBe(v.signature.toLowerCase());
    },
  );

  it.each(VECTORS)('vector $index: verifies to $valid', (v) => {
    expect(schnorrVerify(h(v.signature), h(v.message), h(v.publicKey))).toBe(v.valid);
  });

  it('rejects the vectors 5 and 14 public keys as keys, as LEZ PublicKey::try_new does', () => {
    expect(isValidXOnlyPublicKey(h(VECTORS[5]!.publicKey))).toBe(false);
    expect(isValidXOnlyPublicKey(h(VECTORS[14]!.publicKey))).toBe(false);
    expect(
      VECTORS.filter((v) => v.index !== 5 && v.index !== 14).every((v) => isValidXOnlyPublicKey(h(v.publicKey))),
    ).toBe(true);
  });
});

describe('LEZ signing modes', () => {
  const secretKey = hexToBytes('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb', 32);
  const message: PublicMessage = {
    programId: [1, 2, 3, 4, 5, 6, 7, 8],
    accountIds: [new Uint8Array(32).fill(42), new Uint8Array(32).fill(43)],
    nonces: [5n],
    instructionData: nativeTransferInstruction(100n),
  };
  const aux = new Uint8Array(32);

  it('prehash-v0.3 signs SHA-256("/LEE/v0.3/Message/Public/" padded to 32 ‖ borsh(Message))', () => {
    const prefix = new Uint8Array(32);
    prefix.set(new TextEncoder().encode('/LEE/v0.3/Message/Public/'));
    const expected = sha256(new Uint8Array([...prefix, ...encodePublicMessage(message)]));
    expect(toHex(publicMessageHash(message))).toBe(toHex(expected));
    expect(signingPayload(message, 'prehash-v0.3')).toEqual(expected);
    // BIP-340 over that 32-byte value, exactly.
    const witness = signPublicMessage(message, secretKey, 'prehash-v0.3', aux);
    expect(witness.signature).toEqual(schnorrSign(expected, secretKey, aux));
    expect(witness.publicKey).toEqual(xOnlyPublicKey(secretKey));
  });

  it('raw-borsh signs the borsh bytes themselves', () => {
    expect(signingPayload(message, 'raw-borsh')).toEqual(encodePublicMessage(message));
    const witness = signPublicMessage(message, secretKey, 'raw-borsh', aux);
    expect(witness.signature).toEqual(schnorrSign(encodePublicMessage(message), secretKey, aux));
  });

  it('a signature verifies only in the mode it was made in', () => {
    const pre = signPublicMessage(message, secretKey, 'prehash-v0.3');
    const raw = signPublicMessage(message, secretKey, 'raw-borsh');
    expect(verifyWitness(message, pre, 'prehash-v0.3')).toBe(true);
    expect(verifyWitness(message, pre, 'raw-borsh')).toBe(false);
    expect(verifyWitness(message, raw, 'raw-borsh')).toBe(true);
    expect(verifyWitness(message, raw, 'prehash-v0.3')).toBe(false);
  });

  it('forgeries fail: flipped signature bit, changed amount, changed nonce, someone else’s key', () => {
    const witness = signPublicMessage(message, secretKey, 'prehash-v0.3');
    const flipped = witness.signature.slice();
    flipped[40]! ^= 1;
    expect(verifyWitness(message, { ...witness, signature: flipped }, 'prehash-v0.3')).toBe(false);
    expect(
      verifyWitness({ ...message, instructionData: nativeTransferInstruction(101n) }, witness, 'prehash-v0.3'),
    ).toBe(false);
    expect(verifyWitness({ ...message, nonces: [6n] }, witness, 'prehash-v0.3')).toBe(false);
    const other = xOnlyPublicKey(new Uint8Array(32).fill(1));
    expect(verifyWitness(message, { ...witness, publicKey: other }, 'prehash-v0.3')).toBe(false);
    // Malformed inputs are a false, not an exception.
    expect(
      verifyWitness(message, { signature: new Uint8Array(63), publicKey: witness.publicKey }, 'prehash-v0.3'),
    ).toBe(false);
    expect(
      verifyWitness(
        message,
        { signature: witness.signature, publicKey: new Uint8Array(32).fill(0xff) },
        'prehash-v0.3',
      ),
    ).toBe(false);
  });

  it('a transaction is valid only when every witness verifies', () => {
    const key2 = new Uint8Array(32).fill(2);
    const good = [
      signPublicMessage(message, secretKey, 'prehash-v0.3'),
      signPublicMessage(message, key2, 'prehash-v0.3'),
    ];
    expect(verifyPublicTransactionSignatures({ message, witnesses: good }, 'prehash-v0.3')).toBe(true);
    const bad = [good[0]!, { ...good[1]!, signature: new Uint8Array(64).fill(1) }];
    expect(verifyPublicTransactionSignatures({ message, witnesses: bad }, 'prehash-v0.3')).toBe(false);
  });

  it('refuses invalid secret keys and aux lengths (programming errors)', () => {
    expect(() => schnorrSign(new Uint8Array(32), new Uint8Array(32))).toThrow(RangeError);
    expect(() => schnorrSign(new Uint8Array(32), secretKey, new Uint8Array(31))).toThrow(RangeError);
  });
});
