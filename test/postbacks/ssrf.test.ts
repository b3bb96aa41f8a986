import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { assertPublicHost, isPublicAddress, RefusedDestinationError } from '../../src/postbacks/postbacks.ssrf';

const ipv4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`;
const octet = fc.integer({ min: 0, max: 255 });

describe('isPublicAddress', () => {
  test.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.100.100.200',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.10',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    'not an address',
    '',
  ])('%s is refused', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])('%s is allowed', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  test('every address in the private, loopback, link-local and CGNAT blocks is refused, in IPv4 and IPv4-mapped form', () => {
    const blocked = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => ipv4(10, b, c, d)),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => ipv4(172, b, c, d)),
      fc.tuple(octet, octet).map(([c, d]) => ipv4(192, 168, c, d)),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => ipv4(127, b, c, d)),
      fc.tuple(octet, octet).map(([c, d]) => ipv4(169, 254, c, d)),
      fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => ipv4(100, b, c, d)),
    );
    fc.assert(
      fc.property(blocked, (address) => {
        expect(isPublicAddress(address)).toBe(false);
        expect(isPublicAddress(`::ffff:${address}`)).toBe(false);
      }),
    );
  });

  test('unique-local and link-local IPv6 are refused', () => {
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    fc.assert(
      fc.property(fc.integer({ min: 0xfc00, max: 0xfeff }), hextet, hextet, (first, a, b) => {
        fc.pre(first <= 0xfdff || (first >= 0xfe80 && first <= 0xfebf));
        expect(isPublicAddress(`${first.toString(16)}:${a}::${b}`)).toBe(false);
      }),
    );
  });
});

describe('assertPublicHost', () => {
  const lookupOf = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  test('refuses a name with any non-public address among its answers', async () => {
    const lookup = lookupOf({ 'mixed.example': ['93.184.216.34', '10.0.0.5'], 'meta.example': ['169.254.169.254'] });
    await expect(assertPublicHost('mixed.example', { allowPrivate: false, lookup })).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(assertPublicHost('meta.example', { allowPrivate: false, lookup })).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  test('refuses literal addresses, including bracketed IPv6 as URL.hostname gives them', async () => {
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:7f00:1]', new URL('http://0x7f.1/').hostname, new URL('http://2130706433/').hostname]) {
      await expect(assertPublicHost(host, { allowPrivate: false, lookup: lookupOf({}) })).rejects.toBeInstanceOf(RefusedDestinationError);
    }
  });

  test('allows public names and addresses', async () => {
    const lookup = lookupOf({ 'ads.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    await assertPublicHost('ads.example', { allowPrivate: false, lookup });
    await assertPublicHost('8.8.8.8', { allowPrivate: false, lookup });
  });

  test('passes DNS failures through (they are retried), and refuses names with no address', async () => {
    await expect(assertPublicHost('nowhere.example', { allowPrivate: false, lookup: lookupOf({}) })).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(assertPublicHost('empty.example', { allowPrivate: false, lookup: lookupOf({ 'empty.example': [] }) })).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  test('checks nothing when the operator allows private targets', async () => {
    await assertPublicHost('127.0.0.1', { allowPrivate: true, lookup: lookupOf({}) });
  });

  test('localhost resolves to loopback and is refused', async () => {
    await expect(assertPublicHost('localhost', { allowPrivate: false })).rejects.toBeInstanceOf(RefusedDestinationError);
  });
});
