/**
 * An exclusive claim on a file by one process: flock(2) on a descriptor kept open until release.
 * The kernel drops it when the process dies, so a file left by a crash never blocks a start; the
 * pid written inside is for operators to read, never what decides (pids repeat across containers).
 */
import { dlopen, FFIType, read } from 'bun:ffi';
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';

const LOCK_EX = 2;
const LOCK_NB = 4;
const EINTR = 4;
/** A file removed between our open and our lock, again and again, ends in `busy(null)`. */
const ATTEMPTS = 100;

const FLOCK = { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } as const;
const ERRNO = { args: [], returns: FFIType.ptr } as const;

interface Libc {
  flock(fd: number, operation: number): number;
  errno(): number;
  /** EWOULDBLOCK: another descriptor holds the lock. */
  wouldBlock: number;
}

let libc: Libc | undefined;

/** Neither Node nor Bun exposes flock, hence the C library through Bun's FFI (glibc or macOS). */
function openLibc(): Libc {
  if (process.platform === 'darwin') {
    const lib = dlopen('libc.dylib', { flock: FLOCK, __error: ERRNO });
    return { flock: lib.symbols.flock, errno: () => read.i32(lib.symbols.__error()!, 0), wouldBlock: 35 };
  }
  const lib = dlopen('libc.so.6', { flock: FLOCK, __errno_location: ERRNO });
  return { flock: lib.symbols.flock, errno: () => read.i32(lib.symbols.__errno_location()!, 0), wouldBlock: 11 };
}

/**
 * Locks `file` (created if missing) until the returned release is called or the process ends.
 * Held elsewhere, by another process or another open in this one, it throws `busy(pid)` with the
 * pid the holder wrote, or null when it wrote none yet.
 */
export function lockFile(file: string, busy: (holder: number | null) => Error): () => void {
  const { flock, errno, wouldBlock } = (libc ??= openLibc());
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o644);
    let held = false;
    try {
      if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
        const code = errno();
        if (code === EINTR) continue;
        if (code === wouldBlock) throw busy(recordedPid(file));
        throw new Error(`cannot lock ${file}: flock failed with errno ${code}`);
      }
      // The previous holder removed the file as it released it: this lock is on an orphan.
      if (!isStillAt(fd, file)) continue;
      ftruncateSync(fd, 0);
      writeSync(fd, `${process.pid}\n`, 0);
      held = true;
    } finally {
      if (!held) closeSync(fd);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Removed while still locked: a taker that opened it meanwhile sees it gone and retries.
      rmSync(file, { force: true });
      closeSync(fd);
    };
  }
  throw busy(null);
}

function isStillAt(fd: number, file: string): boolean {
  const opened = fstatSync(fd);
  try {
    const named = statSync(file);
    return named.ino === opened.ino && named.dev === opened.dev;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function recordedPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
