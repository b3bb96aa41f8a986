import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/**
 * An exclusive claim on a directory by one live process: a pid file created with O_EXCL.
 * A file left by a process that died is taken over; one held by a live process makes
 * `busy(pid)` the error to throw. Resolves to the release function.
 */
export function acquirePidLock(file: string, busy: (holder: number | null) => Error): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8').trim());
      if (holder && holder !== process.pid && isAlive(holder)) throw busy(holder);
      rmSync(file, { force: true }); // left behind by a process that died
    }
  }
  throw busy(null);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
