import { expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { prepareIpData } from '../../src/ipintel/ip-data.thread';
import { openIpIntel } from '../../src/ipintel/ip-intel';
import { asnCsvDir } from '../support/asn-csv';
import { tempDir } from '../support/temp-dir';

test('the thread parses the ASN files into the cache, which a lookup then maps', async () => {
  const asnDir = asnCsvDir();
  const cacheDir = tempDir('ip-data');
  expect(await prepareIpData({ asnDir, cacheDir })).toBe(4);
  const written = readdirSync(cacheDir).filter((file) => /^asn-[0-9a-f]{16}\.bin$/.test(file));
  expect(written).toHaveLength(1);
  // The cache the thread wrote is the one this thread loads: same rows, nothing parsed again.
  const intel = openIpIntel({ asnDir, cacheDir });
  expect(intel.pool('8.8.8.8')).toMatchObject({ asn: 15169, as_org: 'Google LLC' });
  expect(readdirSync(cacheDir).filter((file) => file.startsWith('asn-'))).toEqual(written);
});

test('a broken ASN file rejects with its place, and leaves no cache', async () => {
  const asnDir = asnCsvDir('1,2,not-a-number,Org');
  const cacheDir = tempDir('ip-data');
  let failure: Error | undefined;
  try {
    await prepareIpData({ asnDir, cacheDir });
  } catch (error) {
    failure = error as Error;
  }
  expect(failure?.message).toContain('asn-ipv4-num.csv:1');
  expect(readdirSync(cacheDir).filter((file) => file.startsWith('asn-'))).toEqual([]);
});
