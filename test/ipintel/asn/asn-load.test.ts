import { describe, expect, spyOn, test } from 'bun:test';
import fc from 'fast-check';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asnCacheFileName, asnFingerprint, deserializeAsnArrays, loadAsnTable, serializeAsnArrays } from '../../../src/ipintel/asn/asn-load';
import { AsnDataError, asnTableOf, parseAsnArrays } from '../../../src/ipintel/asn/asn-table';
import { parseIp } from '../../../src/ipintel/address';
import { ASN_V4, ASN_V6, asnCsvDir } from '../../support/asn-csv';
import { tempDir } from '../../support/temp-dir';

const ip = (text: string) => parseIp(text)!;

const probes = ['1.0.0.7', '8.8.8.8', '8.8.9.1', '9.9.9.9', '2001:4860::1', '2001:4861::1'];
const answers = (table: ReturnType<typeof asnTableOf>) => probes.map((p) => table.lookup(ip(p)));

describe('the cache file format', () => {
  test('property: serialize then deserialize gives the same arrays, as views', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 0xffff_ffff }), fc.string().filter((s) => !/[\n"]/.test(s) && !s.includes(','))), { minLength: 1, maxLength: 20 }), fc.string(), (entries, fingerprint) => {
        const v4 = entries.map(([asn, org], i) => `${i * 10},${i * 10 + 5},${asn},${org}`).join('\n');
        const arrays = parseAsnArrays(v4, ASN_V6);
        const back = deserializeAsnArrays(serializeAsnArrays(arrays, fingerprint), fingerprint);
        expect(back).toEqual(arrays);
        expect(asnTableOf(back!).records()).toEqual(asnTableOf(arrays).records());
      }),
      { numRuns: 50 },
    );
  });

  test('anything else is not a cache: another fingerprint, a cut file, a stray byte, another magic or format', () => {
    const bytes = serializeAsnArrays(parseAsnArrays(ASN_V4, ASN_V6), 'print');
    expect(deserializeAsnArrays(bytes, 'print')).not.toBeNull();
    const altered = (change: (copy: Uint8Array) => Uint8Array) => deserializeAsnArrays(change(bytes.slice()), 'print');
    expect(deserializeAsnArrays(bytes, 'other print')).toBeNull();
    expect(altered((copy) => copy.slice(0, copy.length - 1))).toBeNull();
    expect(altered((copy) => Uint8Array.from([...copy, 0]))).toBeNull();
    expect(altered((copy) => ((copy[0] = 0x41), copy))).toBeNull();
    expect(altered((copy) => ((copy[12] = 9), copy))).toBeNull();
    expect(altered(() => new Uint8Array(3))).toBeNull();
  });
});

describe('loadAsnTable', () => {
  test('the shipped data loads once per process and names well-known networks', () => {
    const table = loadAsnTable();
    expect(loadAsnTable()).toBe(table);
    expect(table.rows.v4).toBeGreaterThan(100_000);
    expect(table.rows.v6).toBeGreaterThan(10_000);
    expect(table.lookup(ip('8.8.8.8'))).toEqual({ asn: 15169, org: 'Google LLC' });
    expect(table.lookup(ip('2001:4860:4860::8888'))).toEqual({ asn: 15169, org: 'Google LLC' });
    expect(table.lookup(ip('172.56.10.20'))?.asn).toBe(21928);
    expect(table.lookup(ip('10.1.2.3'))).toBeNull();
    expect(table.lookup(ip('::1'))).toBeNull();
  });

  test('with a cache directory: written on the first load, mapped on the next instead of parsing', () => {
    const dir = asnCsvDir();
    const cacheDir = join(tempDir('asn-cache'), 'ipintel');
    const first = loadAsnTable({ dir, cacheDir });
    const name = asnCacheFileName(asnFingerprint(dir));
    expect(readdirSync(cacheDir)).toEqual([name]);
    expect(answers(first)).toEqual(answers(asnTableOf(parseAsnArrays(ASN_V4, ASN_V6))));
    // The same files under another spelling of the path, their text now unreadable as CSV but
    // with the same size and time: only the cache can answer.
    const v4Path = join(dir, 'asn-ipv4-num.csv');
    const { atime, mtime } = statSync(v4Path);
    writeFileSync(v4Path, 'x'.repeat(Buffer.byteLength(ASN_V4)));
    utimesSync(v4Path, atime, mtime);
    const second = loadAsnTable({ dir: `${dir}/.`, cacheDir });
    expect(second).not.toBe(first);
    expect(answers(second)).toEqual(answers(first));
    expect(second.lookup(ip('8.8.9.1'))).toEqual({ asn: 64500, org: 'Ünïcödé Networks' });
  });

  test('new data gets a new cache file; the stale one goes', () => {
    const dir = asnCsvDir();
    const cacheDir = tempDir('asn-cache');
    loadAsnTable({ dir, cacheDir });
    const stale = readdirSync(cacheDir);
    writeFileSync(join(dir, 'asn-ipv4-num.csv'), `${ASN_V4}\n167772160,167772415,64501,Added Later`);
    const table = loadAsnTable({ dir: `${dir}/.`, cacheDir });
    expect(table.lookup(ip('10.0.0.1'))).toEqual({ asn: 64501, org: 'Added Later' });
    const now = readdirSync(cacheDir);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(stale);
  });

  test('a damaged cache file is rebuilt from the CSV files', () => {
    const dir = asnCsvDir();
    const cacheDir = tempDir('asn-cache');
    const path = join(cacheDir, asnCacheFileName(asnFingerprint(dir)));
    writeFileSync(path, 'not a cache at all');
    const table = loadAsnTable({ dir, cacheDir });
    expect(answers(table)).toEqual(answers(asnTableOf(parseAsnArrays(ASN_V4, ASN_V6))));
    expect(deserializeAsnArrays(new Uint8Array(readFileSync(path)), asnFingerprint(dir))).not.toBeNull();
  });

  test('a cache that cannot be written leaves the table in memory and says so once', () => {
    const dir = asnCsvDir();
    const blocked = join(tempDir('asn-cache'), 'a-file');
    writeFileSync(blocked, 'in the way');
    const errors = spyOn(console, 'error').mockImplementation(() => {});
    try {
      const table = loadAsnTable({ dir, cacheDir: join(blocked, 'ipintel') });
      expect(answers(table)).toEqual(answers(asnTableOf(parseAsnArrays(ASN_V4, ASN_V6))));
      expect(errors).toHaveBeenCalledTimes(1);
      expect(String(errors.mock.calls[0]![0])).toContain('not written');
    } finally {
      errors.mockRestore();
    }
    expect(existsSync(join(blocked, 'ipintel'))).toBe(false);
  });

  test('a directory without the files fails with the path, cache or not', () => {
    const dir = tempDir('asn');
    for (const cacheDir of [undefined, tempDir('asn-cache')]) {
      expect(() => loadAsnTable({ dir, cacheDir })).toThrow(AsnDataError);
      expect(() => loadAsnTable({ dir, cacheDir })).toThrow(dir);
    }
  });
});
