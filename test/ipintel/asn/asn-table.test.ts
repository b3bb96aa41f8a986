import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { AsnDataError, buildAsnTable, parseAsnRow, type AsnRecord } from '../../../src/ipintel/asn/asn-table';
import { parseIp } from '../../../src/ipintel/address';

const ip = (text: string) => parseIp(text)!;

/** A CSV field as the published files write it: quoted only when it must be. */
const csvField = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

describe('parseAsnRow', () => {
  test('reads plain and quoted organisations, doubled quotes included', () => {
    expect(parseAsnRow('16777216,16777471,13335,"Cloudflare, Inc."', 'f', 1)).toEqual({ start: '16777216', end: '16777471', asn: 13335, org: 'Cloudflare, Inc.' });
    expect(parseAsnRow('35309568,35313663,201907,"LLC ""SPUTNIK"""', 'f', 1).org).toBe('LLC "SPUTNIK"');
    expect(parseAsnRow('1,2,3,Gtelecom Pty Ltd', 'f', 1).org).toBe('Gtelecom Pty Ltd');
  });

  const invalid: [string, string][] = [
    ['too few fields', '1,2,3'],
    ['a negative bound', '-1,2,3,x'],
    ['a hex bound', '0x10,20,3,x'],
    ['an empty asn', '1,2,,x'],
    ['an asn past 32 bits', '1,2,4294967296,x'],
    ['a stray quote', '1,2,3,a"b'],
    ['an unclosed quote', '1,2,3,"abc'],
    ['a lone quote inside quotes', '1,2,3,"a"b"'],
  ];
  for (const [name, line] of invalid) {
    test(`refuses ${name}, naming the line`, () => {
      expect(() => parseAsnRow(line, 'asn.csv', 7)).toThrow(AsnDataError);
      expect(() => parseAsnRow(line, 'asn.csv', 7)).toThrow('asn.csv:7');
    });
  }

  test('property: any organisation written as CSV reads back the same', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 0xffff_ffff }), fc.string().filter((s) => !s.includes('\n')), (start, end, asn, org) => {
        expect(parseAsnRow(`${start},${end},${asn},${csvField(org)}`, 'f', 1)).toEqual({ start: String(start), end: String(end), asn, org });
      }),
    );
  });
});

describe('buildAsnTable', () => {
  const v4 = ['16777216,16777471,13335,"Cloudflare, Inc."', '134744064,134744319,15169,Google LLC', '134744320,134744575,15169,Google LLC'].join('\n');
  const v6 = '42541956101370907050197289607612071936,42541956180599069564461627201156022271,15169,Google LLC\n';

  test('finds the row holding an address, at both bounds, and nothing in the gaps', () => {
    const table = buildAsnTable(v4, v6);
    expect(table.lookup(ip('1.0.0.0'))).toEqual({ asn: 13335, org: 'Cloudflare, Inc.' });
    expect(table.lookup(ip('1.0.0.255'))).toEqual({ asn: 13335, org: 'Cloudflare, Inc.' });
    expect(table.lookup(ip('1.0.1.0'))).toBeNull();
    expect(table.lookup(ip('0.255.255.255'))).toBeNull();
    expect(table.lookup(ip('8.8.8.8'))).toEqual({ asn: 15169, org: 'Google LLC' });
    expect(table.lookup(ip('2001:4860::'))).toEqual({ asn: 15169, org: 'Google LLC' });
    expect(table.lookup(ip('2001:4860:ffff:ffff:ffff:ffff:ffff:ffff'))).toEqual({ asn: 15169, org: 'Google LLC' });
    expect(table.lookup(ip('2001:4861::'))).toBeNull();
    expect(table.rows).toEqual({ v4: 3, v6: 1 });
    expect(table.records()).toEqual([
      { asn: 13335, org: 'Cloudflare, Inc.' },
      { asn: 15169, org: 'Google LLC' },
    ]);
  });

  test('a row starting inside the previous one wins the overlap', () => {
    const table = buildAsnTable('100,300,1,first\n200,400,2,second\n', '');
    const at = (n: number) => table.lookup(ip([24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.')))?.asn ?? null;
    expect([at(100), at(199), at(200), at(300), at(400), at(401)]).toEqual([1, 1, 2, 2, 2, null]);
  });

  const broken: [string, string, string][] = [
    ['unsorted rows', '200,300,1,a\n100,150,2,b', 'not sorted'],
    ['an inverted range', '300,200,1,a', 'empty'],
    ['an IPv4 bound past 32 bits', '1,4294967296,1,a', 'outside'],
    ['a malformed row', '1,2,3,a\njunk', 'v4.csv:2'],
  ];
  for (const [name, text, message] of broken) {
    test(`refuses ${name}`, () => {
      expect(() => buildAsnTable(text, '', { v4: 'v4.csv', v6: 'v6.csv' })).toThrow(message);
    });
  }

  test('property: lookups agree with a scan of the rows (IPv4 and IPv6)', () => {
    const sortedDistinct = (max: bigint, count: number) =>
      fc.uniqueArray(fc.bigInt({ min: 0n, max }), { minLength: 2, maxLength: count }).map((values) => values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const family = (bits: bigint) =>
      fc.tuple(sortedDistinct((1n << bits) - 1n, 40), fc.array(fc.bigInt({ min: 0n, max: (1n << bits) - 1n }), { minLength: 1, maxLength: 30 }));
    const rowsOf = (bounds: bigint[]) => {
      // Consecutive pairs of distinct sorted values: non-overlapping inclusive ranges with gaps.
      const rows: { start: bigint; end: bigint; asn: number; org: string }[] = [];
      for (let at = 0; at + 1 < bounds.length; at += 2) rows.push({ start: bounds[at]!, end: bounds[at + 1]!, asn: at + 1, org: `org ${at % 3}` });
      return rows;
    };
    const scan = (rows: ReturnType<typeof rowsOf>, n: bigint): AsnRecord | null => {
      const row = rows.find((r) => r.start <= n && n <= r.end);
      return row ? { asn: row.asn, org: row.org } : null;
    };
    const csv = (rows: ReturnType<typeof rowsOf>) => rows.map((r) => `${r.start},${r.end},${r.asn},${r.org}`).join('\n');
    const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n).join('.');
    const v6Text = (n: bigint) => [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => ((n >> s) & 0xffffn).toString(16)).join(':');
    fc.assert(
      fc.property(family(32n), family(128n), ([b4, probes4], [b6, probes6]) => {
        const [rows4, rows6] = [rowsOf(b4), rowsOf(b6)];
        const table = buildAsnTable(csv(rows4), csv(rows6));
        for (const n of [...probes4, ...rows4.flatMap((r) => [r.start, r.end, r.end + 1n])]) {
          if (n < 1n << 32n) expect(table.lookup(ip(v4Text(n)))).toEqual(scan(rows4, n));
        }
        for (const n of [...probes6, ...rows6.flatMap((r) => [r.start, r.end, r.end + 1n])]) {
          const address = ip(v6Text(n & ((1n << 128n) - 1n)));
          // A mapped address (::ffff:a.b.c.d) is looked up as IPv4 by design.
          if (address.kind() === 'ipv6') expect(table.lookup(address)).toEqual(scan(rows6, n & ((1n << 128n) - 1n)));
        }
      }),
      { numRuns: 200 },
    );
  });
});
