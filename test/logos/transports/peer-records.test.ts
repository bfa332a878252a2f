import { expect, it } from 'vitest';
import { dialableAddresses } from '../../../src/logos/transports/waku/peer-records.ts';

const ID = '16Uiu2HAmPLe7Mzm8TsYUubgCAW1aJoeFScxrLj8ppHFivPo97bUZ';
const at = (address: string) => `${address}/p2p/${ID}`;
const ADDRESSES = [
  at('/ip4/203.0.114.7/tcp/60000'), // public
  at('/ip4/127.0.0.1/tcp/5432'), // loopback: the node's own database, say
  at('/ip4/10.1.2.3/tcp/60000'), // private network
  at('/ip4/169.254.169.254/tcp/80'), // cloud metadata
  at('/ip6/::1/tcp/60000/ws'),
  at('/dns4/node-01.example.org/tcp/8000/wss'), // by name
];

it('from a peer at a public address, dials only public addresses and names', () => {
  expect(dialableAddresses(ADDRESSES, '198.51.99.5')).toEqual([ADDRESSES[0], ADDRESSES[5]]);
});

it('from a peer at a non-public address (a fleet of one network, a test on one machine), non-public ones too, but no metadata service', () => {
  expect(dialableAddresses(ADDRESSES, '127.0.0.1')).toEqual([
    ADDRESSES[0],
    ADDRESSES[1],
    ADDRESSES[2],
    ADDRESSES[4],
    ADDRESSES[5],
  ]);
  expect(dialableAddresses(ADDRESSES, '10.0.0.9')).toEqual(dialableAddresses(ADDRESSES, '127.0.0.1'));
});

it('when it cannot tell where the answer came from, as from a public peer', () => {
  expect(dialableAddresses(ADDRESSES, undefined)).toEqual([ADDRESSES[0], ADDRESSES[5]]);
});
