import { afterAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { join } from 'node:path';
import { assertAcceptableUrl, fetchPinned, isPublicAddress, resolveTarget, UnsafeTargetError } from '../../../src/shared/net/safe-target';

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
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::8.8.8.8',
    '64:ff9b:1::808:808',
    '2001:0:808:808::80ff:fffe',
    '2001:0:a00:1::fefe:fefe',
    '::ffff:0:7f00:1',
    'not an address',
    '',
  ])('%s is refused', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:808:808::fefe:fefe',
  ])('%s is allowed', (address) => {
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

  const v4Parts = (address: string) => {
    const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
    return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)] as const;
  };
  const nonPublicV4 = fc.tuple(octet, octet, octet, octet).map(([a, b, c, d]) => ipv4(a, b, c, d)).filter((address) => !isPublicAddress(address));

  test('IPv6 forms embedding a non-public IPv4 are refused: compatible, mapped, NAT64, 6to4, Teredo server and client', () => {
    fc.assert(
      fc.property(nonPublicV4, (address) => {
        const [high, low] = v4Parts(address);
        const inverted = [(~parseInt(high, 16) & 0xffff).toString(16), (~parseInt(low, 16) & 0xffff).toString(16)];
        for (const form of [`::${address}`, `::ffff:${address}`, `64:ff9b::${high}:${low}`, `2002:${high}:${low}::1`, `2001:0:${high}:${low}::fefe:fefe`, `2001:0:808:808::${inverted[0]}:${inverted[1]}`]) {
          expect([form, isPublicAddress(form)]).toEqual([form, false]);
        }
      }),
    );
  });

  test('NAT64 and 6to4 embedding a public IPv4 are judged as that address', () => {
    const publicV4 = fc.tuple(octet, octet, octet, octet).map(([a, b, c, d]) => ipv4(a, b, c, d)).filter(isPublicAddress);
    fc.assert(
      fc.property(publicV4, (address) => {
        const [high, low] = v4Parts(address);
        expect(isPublicAddress(`64:ff9b::${high}:${low}`)).toBe(true);
        expect(isPublicAddress(`2002:${high}:${low}::1`)).toBe(true);
      }),
    );
  });
});

const lookupOf = (table: Record<string, string[]>) => async (host: string) => {
  const found = table[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

describe('assertAcceptableUrl', () => {
  test('http(s) only, no credentials, no literal private address or localhost name', () => {
    for (const url of ['ftp://ads.example.com/x', 'not a url', 'https://user:pw@ads.example.com/', 'http://127.0.0.1:8080/', 'http://[::1]/', 'http://[::127.0.0.1]/', 'http://localhost/', 'http://api.localhost/']) {
      expect(() => assertAcceptableUrl(url, false)).toThrow(UnsafeTargetError);
    }
    expect(assertAcceptableUrl('https://ads.example.com/v1/app-conversions', false).host).toBe('ads.example.com');
    expect(assertAcceptableUrl('http://127.0.0.1:8080/', true).port).toBe('8080');
  });
});

describe('resolveTarget', () => {
  const target = (url: string, allowPrivate: boolean, table: Record<string, string[]> = {}) => resolveTarget(new URL(url), { allowPrivate, lookup: lookupOf(table) });

  test('refuses a name with any non-public address among its answers', async () => {
    const table = { 'mixed.example': ['93.184.216.34', '10.0.0.5'], 'meta.example': ['169.254.169.254'], 'compat.example': ['::127.0.0.1'] };
    for (const host of Object.keys(table)) await expect(target(`https://${host}/x`, false, table)).rejects.toBeInstanceOf(UnsafeTargetError);
  });

  test('refuses literal addresses, including bracketed IPv6 and the forms the URL parser reads as 127.0.0.1', async () => {
    for (const url of ['http://127.0.0.1/', 'http://[::1]/', 'http://[::ffff:7f00:1]/', 'http://[::127.0.0.1]/', 'http://0x7f.1/', 'http://2130706433/']) {
      await expect(target(url, false)).rejects.toBeInstanceOf(UnsafeTargetError);
    }
  });

  test('refuses localhost names without asking DNS', async () => {
    for (const url of ['http://localhost/', 'http://LOCALHOST./', 'http://api.localhost/']) {
      await expect(target(url, false, { localhost: ['93.184.216.34'], 'api.localhost': ['93.184.216.34'] })).rejects.toBeInstanceOf(UnsafeTargetError);
    }
  });

  test('answers the first address of a public name; literal public addresses are their own answer', async () => {
    expect(await target('https://ads.example/x', false, { 'ads.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] })).toBe('93.184.216.34');
    expect(await target('https://8.8.8.8/x', false)).toBe('8.8.8.8');
  });

  test('passes DNS failures through (they are retried), and refuses names with no address', async () => {
    await expect(target('https://nowhere.example/', false)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(target('https://empty.example/', false, { 'empty.example': [] })).rejects.toBeInstanceOf(UnsafeTargetError);
  });

  test('with private targets allowed the name is still resolved once, and its address used', async () => {
    expect(await target('http://internal.example/', true, { 'internal.example': ['10.0.0.7'] })).toBe('10.0.0.7');
    expect(await target('http://127.0.0.1:9/', true)).toBe('127.0.0.1');
  });

  test('the system resolver sends localhost to loopback, refused', async () => {
    await expect(resolveTarget(new URL('http://localhost/'), { allowPrivate: false })).rejects.toBeInstanceOf(UnsafeTargetError);
  });
});

describe('fetchPinned', () => {
  const tls = (name: string) => Bun.file(join(import.meta.dir, 'tls', name)).text();
  const servers: { stop(force: boolean): unknown }[] = [];
  afterAll(() => servers.forEach((server) => server.stop(true)));
  const signal = () => AbortSignal.timeout(5000);

  test('connects to the address resolved once, naming the host in the Host header', async () => {
    const hosts: string[] = [];
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => (hosts.push(request.headers.get('host')!), new Response('ok')) });
    servers.push(server);
    let lookups = 0;
    const lookup = async () => (++lookups === 1 ? ['127.0.0.1'] : ['127.0.0.2']);
    const response = await fetchPinned(new URL(`http://pb.test:${server.port}/x`), { method: 'GET', headers: { host: 'evil.test' } }, { allowPrivate: true, lookup, signal: signal() });
    expect(response.status).toBe(200);
    expect(lookups).toBe(1);
    expect(hosts).toEqual([`pb.test:${server.port}`]);
  });

  test('HTTPS to the pinned address verifies the certificate against the host name, not the address', async () => {
    const [ca, cert, key] = await Promise.all([tls('ca.pem'), tls('pb.test.pem'), tls('pb.test.key')]);
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, tls: { cert, key }, fetch: (request) => new Response(request.headers.get('host')) });
    servers.push(server);
    const options = { allowPrivate: true, lookup: async () => ['127.0.0.1'], signal: signal(), ca };
    const response = await fetchPinned(new URL(`https://pb.test:${server.port}/x`), { method: 'GET', headers: {} }, options);
    expect(await response.text()).toBe(`pb.test:${server.port}`);
    // The same server under another name: its certificate does not cover that name.
    await expect(fetchPinned(new URL(`https://other.test:${server.port}/x`), { method: 'GET', headers: {} }, options)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  test('never follows a redirect, and refuses a non-public answer before connecting', async () => {
    let hits = 0;
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => (hits++, new Response(null, { status: 302, headers: { location: '/elsewhere' } })) });
    servers.push(server);
    const url = new URL(`http://pb.test:${server.port}/x`);
    const response = await fetchPinned(url, { method: 'GET', headers: {} }, { allowPrivate: true, lookup: async () => ['127.0.0.1'], signal: signal() });
    expect(response.status).toBe(302);
    expect(hits).toBe(1);
    await expect(fetchPinned(url, { method: 'GET', headers: {} }, { allowPrivate: false, lookup: async () => ['127.0.0.1'], signal: signal() })).rejects.toBeInstanceOf(UnsafeTargetError);
    expect(hits).toBe(1);
  });

  test('the signal bounds a lookup that never answers', async () => {
    const never = () => new Promise<string[]>(() => {});
    await expect(fetchPinned(new URL('http://slow.test/'), { method: 'GET', headers: {} }, { allowPrivate: true, lookup: never, signal: AbortSignal.timeout(50) })).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
