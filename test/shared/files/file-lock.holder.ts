/**
 * A lock taker in a process of its own, for file-lock.test.ts: `bun file-lock.holder.ts <file>
 * <start at (epoch ms)> <hold ms>` waits for the start time, tries once, prints "held" or
 * "busy <pid>", and keeps a lock it got for the hold time (or until killed).
 */
import { lockFile } from '../../../src/shared/files/file-lock';

const [file, startAt, holdMs] = process.argv.slice(2);
while (Date.now() < Number(startAt) - 20) await Bun.sleep(10);
while (Date.now() < Number(startAt)); // the last milliseconds spun, so the racers start together
try {
  lockFile(file!, (holder) => new Error(`busy ${holder}`));
  console.log('held');
} catch (error) {
  console.log((error as Error).message);
  process.exit(3);
}
await Bun.sleep(Number(holdMs));
