import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockFile } from '../../../src/shared/files/file-lock';
import { tempDir } from '../../support/temp-dir';

class Busy extends Error {
  constructor(readonly holder: number | null) {
    super(`busy ${holder}`);
  }
}
const busy = (holder: number | null) => new Busy(holder);
const lockPath = () => join(tempDir('lock'), 'data.lock');
const HOLDER = join(import.meta.dir, 'file-lock.holder.ts');

/** A process that takes the lock on `file` at `startAt` and keeps it `holdMs`. */
function taker(file: string, startAt: number, holdMs: number) {
  const proc = Bun.spawn([process.execPath, HOLDER, file, String(startAt), String(holdMs)], { stdout: 'pipe', stderr: 'inherit' });
  const said = (async () => {
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return text.trim();
  })();
  return { proc, said };
}

describe('lockFile: one holder at a time, decided by flock and not by the pid in the file', () => {
  test('processes racing for one file: exactly one holds it, the others are told who does', async () => {
    const file = lockPath();
    const startAt = Date.now() + 3000;
    const racers = Array.from({ length: 6 }, () => taker(file, startAt, 2000));
    const said = await Promise.all(racers.map((racer) => racer.said));
    const holders = racers.filter((_, index) => said[index] === 'held');
    expect(holders).toHaveLength(1);
    expect(said.filter((line) => line.startsWith('busy')).length).toBe(5);
    expect(said.filter((line) => line !== 'held').every((line) => line === `busy ${holders[0]!.proc.pid}` || line === 'busy null')).toBe(true);
    await Promise.all(racers.map((racer) => racer.proc.exited));
  });

  test("a live holder's file emptied, or holding the taker's own pid, still refuses the taker", async () => {
    const file = lockPath();
    const holder = taker(file, 0, 120_000);
    try {
      expect(await holder.said).toBe('held');
      expect(readFileSync(file, 'utf8').trim()).toBe(String(holder.proc.pid));
      expect(() => lockFile(file, busy)).toThrow(`busy ${holder.proc.pid}`);
      // Every container's process is pid 1: the holder's pid can be the taker's own.
      writeFileSync(file, String(process.pid));
      expect(() => lockFile(file, busy)).toThrow(`busy ${process.pid}`);
      writeFileSync(file, '');
      expect(() => lockFile(file, busy)).toThrow('busy null');
    } finally {
      holder.proc.kill('SIGKILL');
      await holder.proc.exited;
    }
    // Killed without releasing: its file is still there, and no longer holds anything.
    expect(existsSync(file)).toBe(true);
    const release = lockFile(file, busy);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(file)).toBe(false);
  });

  test('a file nobody holds is taken, whatever pid it names', () => {
    const file = lockPath();
    for (const left of [String(process.pid), '', '1', '2147483646', 'not a pid']) {
      writeFileSync(file, left);
      const release = lockFile(file, busy);
      expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
      release();
    }
  });

  test('two takers in one process: the second is refused until the first releases', () => {
    const file = lockPath();
    const release = lockFile(file, busy);
    expect(() => lockFile(file, busy)).toThrow(`busy ${process.pid}`);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    release();
    release();
    lockFile(file, busy)();
    expect(existsSync(file)).toBe(false);
  });
});
