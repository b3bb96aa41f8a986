/**
 * npm run bots:refresh [-- --dry-run] [-- --force]
 *
 * Downloads the search engines' published crawler IP ranges into src/ipintel/crawlers/bot-ranges/*.json,
 * replacing a file only with a download that validates; a failed source keeps the shipped snapshot and
 * makes the exit code 1. Servers read the files at start: restart them after a refresh.
 */
import { refreshBotRanges } from '../src/ipintel/crawlers/bot-ranges-refresh';

const args = new Set(process.argv.slice(2));
const outcomes = await refreshBotRanges({ dryRun: args.has('--dry-run'), force: args.has('--force') });
let failed = false;
for (const outcome of outcomes) {
  if (outcome.status === 'failed') {
    failed = true;
    console.error(`${outcome.file}: not refreshed\n  ${outcome.errors.join('\n  ')}`);
  } else {
    const verb = outcome.status === 'unchanged' ? 'unchanged' : args.has('--dry-run') ? 'would update' : 'updated';
    console.log(`${outcome.file}: ${verb} from ${outcome.source} (${outcome.before} -> ${outcome.after} prefixes)`);
  }
}
process.exit(failed ? 1 : 0);
