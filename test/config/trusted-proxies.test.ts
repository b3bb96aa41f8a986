import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Server } from 'bun';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { clientIp } from '../../src/http/client-ip';
import { isTrustedPeer, parseTrustedProxies } from '../../src/config/trusted-proxies';
import { nativeTrackingRoutes } from '../../src/tracking/redirect/tracking.routes';
import { testApp, TEST_TRACKING_URL } from '../support/app';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { awayFromWindowEnd } from '../support/rate-window';

// PGlite boots and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

/** A server whose sockets all come from `peer.address`. */
const serverAt = (peer: { address: string }) => ({ requestIP: () => ({ address: peer.address, family: 'IPv4', port: 1 }) }) as unknown as Server<undefined>;

/**
 * The reference: ipaddr.js's own CIDR match, where an IPv4 address and its IPv4-mapped IPv6
 * form are the same address.
 */
function referenceMatch(peer: string, cidr: string): boolean {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  const parsed = ipaddr.parse(peer);
  const forms: (ipaddr.IPv4 | ipaddr.IPv6)[] = [parsed];
  if (parsed.kind() === 'ipv4') forms.push((parsed as ipaddr.IPv4).toIPv4MappedAddress());
  else if ((parsed as ipaddr.IPv6).isIPv4MappedAddress()) forms.push((parsed as ipaddr.IPv6).toIPv4Address());
  return forms.some((form) => form.kind() === network.kind() && form.match(network, bits));
}

describe('trusted networks', () => {
  const v4 = fc.ipV4();
  const v6 = fc.ipV6();
  const mapped = fc.ipV4().map((ip) => `::ffff:${ip}`);
  const address = fc.oneof(v4, v6, mapped);
  /** A network around the peer itself half the time, so matches are as common as misses. */
  const network = fc.tuple(address, fc.nat(128), fc.boolean());
  const cidrFor = (peer: string, [other, bits, aroundPeer]: [string, number, boolean]) => {
    const base = aroundPeer ? peer : other;
    return `${base}/${bits % ((ipaddr.parse(base).kind() === 'ipv4' ? 32 : 128) + 1)}`;
  };

  test('matching agrees with ipaddr.js on IPv4, IPv6 and IPv4-mapped peers and networks (property)', () => {
    fc.assert(
      fc.property(address, network, (peer, spec) => {
        const cidr = cidrFor(peer, spec);
        return isTrustedPeer(peer, parseTrustedProxies(cidr)) === referenceMatch(peer, cidr);
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(address, fc.array(network, { minLength: 1, maxLength: 4 }), (peer, specs) => {
        const cidrs = specs.map((spec) => cidrFor(peer, spec));
        return isTrustedPeer(peer, parseTrustedProxies(cidrs.join(', '))) === cidrs.some((cidr) => referenceMatch(peer, cidr));
      }),
      { numRuns: 2000 },
    );
  });

  test('edges: prefix boundaries, /0, bare addresses and mapped forms', () => {
    const networks = parseTrustedProxies('10.0.0.0/8, 192.168.1.128/25, 2001:db8::/32, 203.0.113.7, ::ffff:198.51.100.0/120');
    const cases: [string, boolean][] = [
      ['10.255.255.255', true],
      ['11.0.0.0', false],
      ['192.168.1.128', true],
      ['192.168.1.127', false],
      ['::ffff:10.1.2.3', true],
      ['2001:db8:ffff::1', true],
      ['2001:db9::1', false],
      ['203.0.113.7', true],
      ['203.0.113.8', false],
      ['198.51.100.42', true],
      ['::ffff:198.51.101.1', false],
      ['not an address', false],
    ];
    for (const [peer, trusted] of cases) expect({ peer, trusted: isTrustedPeer(peer, networks) }).toEqual({ peer, trusted });
    expect(isTrustedPeer('203.0.113.1', parseTrustedProxies('::/0'))).toBe(true);
    expect(isTrustedPeer('2001:db8::1', parseTrustedProxies('0.0.0.0/0'))).toBe(false);
  });

  test('clientIp reads X-Forwarded-For only from a peer in the networks', () => {
    const trust = { trustProxy: 1, trustedProxies: parseTrustedProxies('10.0.0.0/8') };
    const request = new Request('http://api.test.local/x', { headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.1' } });
    expect(clientIp(request, '10.9.9.9', trust)).toBe('198.51.100.1');
    expect(clientIp(request, '::ffff:10.9.9.9', trust)).toBe('198.51.100.1');
    expect(clientIp(request, '172.16.0.1', trust)).toBe('172.16.0.1');
    expect(clientIp(request, undefined, trust)).toBe('0.0.0.0');
  });

  test('bad entries are refused with the entry named', () => {
    for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/08', '010.0.0.1/8', '10.1/8', 'proxy.internal', '', '10.0.0.0/8,,']) {
      expect(() => parseTrustedProxies(bad)).toThrow(/is not an IPv4 or IPv6 address or CIDR|prefix length/);
    }
  });
});

describe('TRUSTED_PROXIES through the app', async () => {
  const [pglite] = backends();
  const db = await pglite!.create();
  const env = { TRUST_PROXY: '1', TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8:ff::/48' };

  test('rate limits read X-Forwarded-For only from a trusted peer', async () => {
    await awayFromWindowEnd();
    const t = await testApp(db, { ...env, RATE_LIMIT: 'on' });
    const peer = { address: '203.0.113.5' };
    (t.app as { server: unknown }).server = serverAt(peer);
    const register = (forwarded: string) => t.request('/register', { method: 'POST', headers: { 'x-forwarded-for': forwarded }, json: {} });
    // An untrusted peer is the client whatever it forwards: its 21st call is over the budget.
    for (let i = 0; i < 20; i++) expect((await register(`198.51.100.${i}`)).status).toBe(400);
    expect((await register('198.51.100.200')).status).toBe(429);
    // Through trusted proxies (an IPv4-mapped peer, an IPv6 one) each forwarded client has its own budget.
    for (const proxy of ['::ffff:10.1.2.3', '2001:db8:ff:1::7']) {
      peer.address = proxy;
      for (let i = 0; i < 21; i++) expect((await register(`192.0.2.${i}`)).status).toBe(400);
    }
  });

  test('the redirect hot path stores the forwarded client only behind a trusted peer', async () => {
    const t = await testApp(db, env);
    const org = await orgWithKey(db);
    const { slug } = await insertLink(db, org.orgId);
    const routes = nativeTrackingRoutes({ ...t.services, config: t.config });
    const clickFrom = async (peer: string, forwarded: string) => {
      const request = Object.assign(new Request(`${TEST_TRACKING_URL}/c/${slug}`, { headers: { 'x-forwarded-for': forwarded } }), { params: { slug } });
      const response = await routes['/c/:slug'].GET(request, serverAt({ address: peer }));
      expect(response.status).toBe(302);
      await t.services.clickPipeline.flush();
      const id = new URL(response.headers.get('location')!).searchParams.get('svc_click_id');
      return (await db.query<{ ip: string }>('SELECT ip FROM clicks WHERE id = $1', [id]))[0]!.ip;
    };
    expect(await clickFrom('10.0.0.9', '198.51.100.7')).toBe('198.51.100.7');
    expect(await clickFrom('::ffff:10.0.0.9', '198.51.100.8')).toBe('198.51.100.8');
    expect(await clickFrom('203.0.113.5', '198.51.100.9')).toBe('203.0.113.5');
    expect(await clickFrom('::ffff:203.0.113.6', '198.51.100.9')).toBe('203.0.113.6');
    expect(await clickFrom('2001:db8:fe::1', '198.51.100.9')).toBe('2001:db8:fe::1');
  });
});
