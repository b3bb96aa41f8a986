/**
 * npm run asn:refresh [-- --offline] [-- --dry-run] [-- --force]
 *
 * Rebuilds src/ipintel/asn/asn-types/{datacenter,mobile}.json: the classifier over the organisation
 * names of @ip-location-db/asn, joined with the configured downloads (--offline: none). A list
 * that fails validation keeps the shipped file and makes the exit code 1. Restart servers after.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { refreshAsnTypes } from '../src/ipintel/asn/asn-refresh';
import { loadAsnTable } from '../src/ipintel/asn/asn-load';
import { DEFAULT_ASN_DIR } from '../src/ipintel/asn/asn-table';

const args = new Set(process.argv.slice(2));
const version = (JSON.parse(readFileSync(join(DEFAULT_ASN_DIR, 'package.json'), 'utf8')) as { version: string }).version;
const outcomes = await refreshAsnTypes({
  asnData: { table: loadAsnTable(), version },
  offline: args.has('--offline'),
  dryRun: args.has('--dry-run'),
  force: args.has('--force'),
});
let failed = false;
for (const outcome of outcomes) {
  if (outcome.status === 'failed') {
    failed = true;
    console.error(`${outcome.file}: not refreshed\n  ${outcome.errors.join('\n  ')}`);
    continue;
  }
  for (const warning of outcome.warnings) console.warn(`${outcome.file}: ${warning}`);
  const verb = outcome.status === 'unchanged' ? 'unchanged' : args.has('--dry-run') ? 'would update' : 'updated';
  console.log(`${outcome.file}: ${verb} from ${outcome.source} (${outcome.before} -> ${outcome.after} ASNs)`);
}
process.exit(failed ? 1 : 0);
