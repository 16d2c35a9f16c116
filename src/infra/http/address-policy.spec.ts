import { AddressPolicy, classifyAddress, RangeKind } from './address-policy';

describe('classifyAddress', () => {
  it.each<[string, RangeKind, string]>([
    ['127.0.0.1', 'loopback', '127.0.0.0/8'],
    ['127.255.255.254', 'loopback', '127.0.0.0/8'],
    ['::1', 'loopback', '::1/128'],
    ['10.0.0.1', 'private', '10.0.0.0/8'],
    ['172.16.0.1', 'private', '172.16.0.0/12'],
    ['172.31.255.255', 'private', '172.16.0.0/12'],
    ['192.168.1.1', 'private', '192.168.0.0/16'],
    ['100.64.0.1', 'private', '100.64.0.0/10'],
    ['100.127.255.255', 'private', '100.64.0.0/10'],
    ['fd00::1', 'private', 'fc00::/7'],
    ['fc00::', 'private', 'fc00::/7'],
    ['169.254.169.254', 'link-local', '169.254.0.0/16'],
    ['169.254.0.1', 'link-local', '169.254.0.0/16'],
    ['fe80::1', 'link-local', 'fe80::/10'],
    ['fe80::1%eth0', 'link-local', 'fe80::/10'],
    ['224.0.0.1', 'multicast', '224.0.0.0/4'],
    ['239.255.255.250', 'multicast', '224.0.0.0/4'],
    ['ff02::1', 'multicast', 'ff00::/8'],
    ['0.0.0.0', 'unspecified', '0.0.0.0/8'],
    ['0.1.2.3', 'unspecified', '0.0.0.0/8'],
    ['::', 'unspecified', '::/128'],
    ['255.255.255.255', 'broadcast', '255.255.255.255/32'],
    ['240.0.0.1', 'reserved', '240.0.0.0/4'],
    ['192.0.0.170', 'reserved', '192.0.0.0/24'],
    ['198.18.0.1', 'reserved', '198.18.0.0/15'],
    ['192.0.2.1', 'documentation', '192.0.2.0/24'],
    ['198.51.100.7', 'documentation', '198.51.100.0/24'],
    ['203.0.113.9', 'documentation', '203.0.113.0/24'],
    ['2001:db8::1', 'documentation', '2001:db8::/32'],
    ['::ffff:127.0.0.1', 'loopback', '::ffff:0:0/96 embedding 127.0.0.0/8'],
    ['::ffff:7f00:1', 'loopback', '::ffff:0:0/96 embedding 127.0.0.0/8'],
    ['::ffff:10.0.0.1', 'private', '::ffff:0:0/96 embedding 10.0.0.0/8'],
    ['::ffff:169.254.169.254', 'link-local', '::ffff:0:0/96 embedding 169.254.0.0/16'],
    ['64:ff9b::127.0.0.1', 'loopback', '64:ff9b::/96 embedding 127.0.0.0/8'],
    ['64:ff9b::a9fe:a9fe', 'link-local', '64:ff9b::/96 embedding 169.254.0.0/16'],
    ['2002:7f00:1::', 'loopback', '2002::/16 embedding 127.0.0.0/8'],
    ['2002:c0a8:101::1', 'private', '2002::/16 embedding 192.168.0.0/16'],
    ['::127.0.0.1', 'reserved', '::/96'],
    ['2001:0:4136:e378::1', 'reserved', '2001::/32'],
    ['fec0::1', 'reserved', 'fec0::/10'],
    ['100::1', 'reserved', '100::/64'],
    ['4000::1', 'reserved', 'outside 2000::/3'],
    ['example.com', 'invalid', 'example.com'],
  ])('%s is %s (%s)', (address, kind, range) => {
    expect(classifyAddress(address)).toEqual({ kind, range });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBeNull();
  });
});

describe('AddressPolicy', () => {
  it('refuses every non-public address by default', () => {
    const policy = new AddressPolicy();
    expect(policy.forbiddenRange('127.0.0.1')).toEqual({ kind: 'loopback', range: '127.0.0.0/8' });
    expect(policy.forbiddenRange('10.1.2.3')).toMatchObject({ kind: 'private' });
    expect(policy.forbiddenRange('8.8.8.8')).toBeNull();
  });

  it('allows loopback and private ranges, and only those, with allowPrivateNetwork', () => {
    const policy = new AddressPolicy({ allowPrivateNetwork: true });
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.1', '100.64.0.1', 'fd00::1', '::ffff:127.0.0.1']) {
      expect(policy.forbiddenRange(address)).toBeNull();
    }
    for (const address of ['169.254.169.254', 'fe80::1', '0.0.0.0', '::', '224.0.0.1', '255.255.255.255']) {
      expect(policy.forbiddenRange(address)).not.toBeNull();
    }
  });

  it('treats listed addresses as public (a loopback stand-in for the internet in tests)', () => {
    const policy = new AddressPolicy({ treatAsPublic: ['127.0.0.2'] });
    expect(policy.forbiddenRange('127.0.0.2')).toBeNull();
    expect(policy.forbiddenRange('127.0.0.1')).toMatchObject({ kind: 'loopback' });
  });
});
