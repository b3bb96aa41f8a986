import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyAll, classifyAsn } from '../../../src/ipintel/asn/asn-classifier';
import { AsnListError, MIN_DOWNLOADED_ASNS, parseAsnList, refreshAsnTypes, type AsnRefreshOptions } from '../../../src/ipintel/asn/asn-refresh';
import { buildAsnTable } from '../../../src/ipintel/asn/asn-table';
import {
  ASN_TYPES_DIR,
  AsnTypeFileError,
  loadAsnTypes,
  parseAsnTypeFile,
  readAsnTypeFile,
  serializeAsnTypeFile,
} from '../../../src/ipintel/asn/asn-types';
import { tempDir } from '../../support/temp-dir';

describe('the list files', () => {
  const valid = { source: 'test', updated_at: '2026-09-01T00:00:00.000Z', asns: [3, 1, 2, 2] };

  test('parse sorts and deduplicates; serialize then parse gives the same list back', () => {
    expect(parseAsnTypeFile(valid, 'x')).toEqual({ ...valid, asns: [1, 2, 3] });
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 0xffff_ffff }), { minLength: 1, maxLength: 60 }), fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''), (asns, source) => {
        const file = parseAsnTypeFile({ source, updated_at: valid.updated_at, asns }, 'gen');
        expect(parseAsnTypeFile(JSON.parse(serializeAsnTypeFile(file)), 'again')).toEqual(file);
      }),
    );
  });

  const invalid: [string, unknown][] = [
    ['an array', [1, 2]],
    ['no source', { ...valid, source: '' }],
    ['a bad date', { ...valid, updated_at: 'yesterday' }],
    ['an empty list', { ...valid, asns: [] }],
    ['AS 0', { ...valid, asns: [0] }],
    ['a fraction', { ...valid, asns: [1.5] }],
    ['a string', { ...valid, asns: ['15169'] }],
    ['a number past 32 bits', { ...valid, asns: [2 ** 32] }],
  ];
  for (const [name, document] of invalid) {
    test(`refuses ${name}`, () => {
      expect(() => parseAsnTypeFile(document, 'x')).toThrow(AsnTypeFileError);
    });
  }

  test('the shipped lists validate, are stored in the serialised layout and do not overlap', () => {
    const datacenter = readAsnTypeFile('datacenter');
    const mobile = readAsnTypeFile('mobile');
    for (const [type, file] of [['datacenter', datacenter], ['mobile', mobile]] as const) {
      expect(readFileSync(join(ASN_TYPES_DIR, `${type}.json`), 'utf8')).toBe(serializeAsnTypeFile(file));
    }
    expect(datacenter.asns).toContain(15169);
    expect(mobile.asns).toContain(21928);
    const dc = new Set(datacenter.asns);
    expect(mobile.asns.filter((asn) => dc.has(asn))).toEqual([]);
  });

  test('an ASN on both lists is a datacenter; one on neither is residential', () => {
    const dir = tempDir('asn-types');
    writeFileSync(join(dir, 'datacenter.json'), JSON.stringify({ ...valid, asns: [1, 2] }));
    writeFileSync(join(dir, 'mobile.json'), JSON.stringify({ ...valid, asns: [2, 3] }));
    const types = loadAsnTypes(dir);
    expect([1, 2, 3, 4].map(types.typeOf)).toEqual(['datacenter', 'datacenter', 'mobile', 'residential']);
  });
});

describe('the offline classifier', () => {
  const cases: [number, string, 'datacenter' | 'mobile' | null][] = [
    [16509, 'Amazon.com, Inc.', 'datacenter'],
    [267242, 'AMAZONIA TELECOMUNICACOES LTDA', null],
    [15169, 'Google LLC', 'datacenter'],
    [16591, 'Google Fiber Inc.', null],
    [24940, 'Hetzner Online GmbH', 'datacenter'],
    [47583, 'Hostinger International Limited', 'datacenter'],
    [19969, "Joe's Datacenter, LLC", 'datacenter'],
    [36351, 'IBM Cloud', 'datacenter'],
    [3816, 'COLOMBIA TELECOMUNICACIONES S.A. ESP', null],
    [21769, 'Colocation America Corporation', 'datacenter'],
    [21928, 'T-Mobile USA, Inc.', 'mobile'],
    [19422, 'Telefonica Moviles del Uruguay SA', 'mobile'],
    [1766, 'Exxon Mobil Corporation', null],
    [11556, 'Cable & Wireless Panama', null],
    [17306, 'JAB Wireless, INC.', null],
    [1680, 'Cellcom Fixed Line Communication L.P', null],
    [20057, 'AT&T Enterprises, LLC', 'mobile'],
    [7018, 'AT&T Enterprises, LLC', null],
    [7922, 'Comcast Cable Communications, LLC', null],
  ];
  for (const [asn, org, expected] of cases) {
    test(`AS${asn} ${org}: ${expected ?? 'neither'}`, () => {
      expect(classifyAsn({ asn, org })).toBe(expected);
    });
  }

  test('an AS that matches both classes is listed once, as a datacenter', () => {
    expect(classifyAll([{ asn: 5, org: 'Mobile Cloud Hosting' }, { asn: 6, org: 'Some Mobile' }, { asn: 5, org: 'Some Mobile' }])).toEqual({ datacenter: [5], mobile: [6] });
  });
});

describe('parseAsnList (the downloaded list)', () => {
  const lines = (count: number) => Array.from({ length: count }, (_, i) => `AS${1000 + i} # network ${i}`).join('\n');

  test('reads AS numbers with comments, blank lines and bare numbers', () => {
    expect(parseAsnList(`# header\n\n${lines(MIN_DOWNLOADED_ASNS)}\n15169\nas16509 # lower case`, 'u')).toEqual(
      [...Array.from({ length: MIN_DOWNLOADED_ASNS }, (_, i) => 1000 + i), 15169, 16509],
    );
  });

  const bad: [string, string][] = [
    ['an HTML page', '<html><body>moved</body></html>'],
    ['a junk line among good ones', `${lines(MIN_DOWNLOADED_ASNS)}\nAS12x`],
    ['AS 0', `${lines(MIN_DOWNLOADED_ASNS)}\nAS0`],
    ['a number past 32 bits', `${lines(MIN_DOWNLOADED_ASNS)}\nAS4294967296`],
    ['too short a list', lines(MIN_DOWNLOADED_ASNS - 1)],
  ];
  for (const [name, text] of bad) {
    test(`refuses ${name}`, () => {
      expect(() => parseAsnList(text, 'u')).toThrow(AsnListError);
    });
  }
});

describe('refreshing the lists (injected fetch)', () => {
  // A small ASN data set standing in for the package: two hosts, one carrier, one ISP.
  const table = buildAsnTable(
    ['1,10,64500,Example Hosting Ltd', '20,30,64501,Example Cloud', '40,50,64502,Example Mobile', '60,70,64503,Example Cable'].join('\n'),
    '',
  );
  const asnData = { table, version: '9.9.9' };
  const listUrl = 'https://lists.example/asn.txt';
  const downloaded = Array.from({ length: MIN_DOWNLOADED_ASNS }, (_, i) => 70000 + i);
  const serve = (routes: Record<string, () => Response>) => {
    const calls: string[] = [];
    const fetch = async (url: string) => {
      calls.push(url);
      const route = routes[url];
      if (!route) throw new TypeError(`getaddrinfo ENOTFOUND ${new URL(url).host}`);
      return route();
    };
    return { calls, fetch };
  };
  const options = (extra: Partial<AsnRefreshOptions> = {}): AsnRefreshOptions => ({
    asnData,
    dir: tempDir('asn-refresh'),
    sources: { datacenter: [listUrl], mobile: [] },
    now: () => new Date('2026-09-01T00:00:00.000Z'),
    ...extra,
  });
  const read = (dir: string, type: 'datacenter' | 'mobile') => readAsnTypeFile(type, dir);

  test('joins a valid download with the classifier; the mobile list comes from the classifier', async () => {
    const { fetch } = serve({ [listUrl]: () => new Response(downloaded.map((asn) => `AS${asn} # host`).join('\n')) });
    const opts = options({ fetch });
    const outcomes = await refreshAsnTypes(opts);
    expect(outcomes.map((o) => o.status)).toEqual(['updated', 'updated']);
    expect(read(opts.dir!, 'datacenter')).toEqual({
      source: `classifier over @ip-location-db/asn 9.9.9 + ${listUrl}`,
      updated_at: '2026-09-01T00:00:00.000Z',
      asns: [64500, 64501, ...downloaded],
    });
    expect(read(opts.dir!, 'mobile').asns).toEqual([64502]);
  });

  test('an unreachable or invalid download is left out with a warning; --offline never fetches', async () => {
    for (const route of [undefined, () => new Response('<html>moved</html>'), () => new Response('x', { status: 503 })]) {
      const { fetch } = serve(route ? { [listUrl]: route } : {});
      const opts = options({ fetch });
      const [datacenter] = await refreshAsnTypes(opts);
      expect(datacenter).toMatchObject({ status: 'updated', source: 'classifier over @ip-location-db/asn 9.9.9', after: 2 });
      expect(datacenter!.status !== 'failed' && datacenter!.warnings[0]).toContain(listUrl);
    }
    const { fetch, calls } = serve({});
    const opts = options({ fetch, offline: true });
    expect((await refreshAsnTypes(opts)).map((o) => o.status)).toEqual(['updated', 'updated']);
    expect(calls).toEqual([]);
  });

  test('a list that would lose more than half its entries is refused unless forced', async () => {
    const dir = tempDir('asn-refresh');
    cpSync(join(ASN_TYPES_DIR, 'datacenter.json'), join(dir, 'datacenter.json'));
    cpSync(join(ASN_TYPES_DIR, 'mobile.json'), join(dir, 'mobile.json'));
    const before = readFileSync(join(dir, 'datacenter.json'), 'utf8');
    const outcomes = await refreshAsnTypes(options({ dir, offline: true }));
    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'failed']);
    expect(readFileSync(join(dir, 'datacenter.json'), 'utf8')).toBe(before);
    const forced = await refreshAsnTypes(options({ dir, offline: true, force: true }));
    expect(forced.map((o) => o.status)).toEqual(['updated', 'updated']);
    expect(read(dir, 'datacenter').asns).toEqual([64500, 64501]);
  });

  test('while the datacenter list is refused, the mobile list still keeps clear of the shipped one', async () => {
    const dir = tempDir('asn-refresh');
    const shipped = Array.from({ length: 10 }, (_, i) => 64502 + i);
    writeFileSync(join(dir, 'datacenter.json'), serializeAsnTypeFile({ source: 's', updated_at: '2026-01-01T00:00:00.000Z', asns: shipped }));
    const [datacenter, mobile] = await refreshAsnTypes(options({ dir, offline: true }));
    expect(datacenter!.status).toBe('failed');
    expect(mobile!.status).toBe('failed');
    if (mobile!.status === 'failed') expect(mobile!.errors.join()).toContain('only 0 ASNs');
    expect(existsSync(join(dir, 'mobile.json'))).toBe(false);
  });

  test('a dry run writes nothing; the same list from the same source is unchanged and not rewritten', async () => {
    const dry = options({ offline: true, dryRun: true });
    expect((await refreshAsnTypes(dry)).map((o) => o.status)).toEqual(['updated', 'updated']);
    expect(existsSync(join(dry.dir!, 'datacenter.json'))).toBe(false);
    const opts = options({ offline: true });
    await refreshAsnTypes(opts);
    const written = readFileSync(join(opts.dir!, 'datacenter.json'), 'utf8');
    const again = await refreshAsnTypes({ ...opts, now: () => new Date('2027-01-01T00:00:00.000Z') });
    expect(again.map((o) => o.status)).toEqual(['unchanged', 'unchanged']);
    expect(readFileSync(join(opts.dir!, 'datacenter.json'), 'utf8')).toBe(written);
  });

  test('a server that never answers times out into a warning', async () => {
    const fetch = (_url: string, init: RequestInit) =>
      new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)));
    const [datacenter] = await refreshAsnTypes(options({ fetch, timeoutMs: 100 }));
    expect(datacenter).toMatchObject({ status: 'updated', after: 2 });
    expect(datacenter!.status !== 'failed' && datacenter!.warnings).toHaveLength(1);
  });
});
