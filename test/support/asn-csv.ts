import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir';

/** A few rows of the ASN CSV files (@ip-location-db/asn's layout): quoted, plain and non-ASCII names. */
export const ASN_V4 = ['16777216,16777471,13335,"Cloudflare, Inc."', '134744064,134744319,15169,Google LLC', '134744320,134744575,64500,Ünïcödé Networks'].join('\n');
export const ASN_V6 = '42541956101370907050197289607612071936,42541956180599069564461627201156022271,15169,Google LLC\n';

/** A new directory of ASN CSV files in the package's layout: a table no other load in the process has seen. */
export function asnCsvDir(v4 = ASN_V4, v6 = ASN_V6): string {
  const dir = tempDir('asn-csv');
  writeFileSync(join(dir, 'asn-ipv4-num.csv'), v4);
  writeFileSync(join(dir, 'asn-ipv6-num.csv'), v6);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '1.2.3' }));
  return dir;
}
