import { describe, expect, spyOn, test } from 'bun:test';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapFile } from '../../../src/ipintel/geo/mapped-file';
import { tempDir } from '../../support/temp-dir';

const refused = (code: string) => Object.assign(new Error(`${code}: permission denied, open`), { code });

/** A mapping that, like Bun.mmap on a file the process may only read, refuses anything outside `writable`. */
function mapOnlyUnder(writable: string) {
  const asked: string[] = [];
  const map = (path: string) => {
    asked.push(path);
    if (!path.startsWith(writable)) throw refused('EACCES');
    return Bun.mmap(path, { shared: false });
  };
  return { map, asked };
}

function dataFile(content = 'mmdb bytes '.repeat(100)) {
  const dir = tempDir('data');
  const path = join(dir, 'city.mmdb');
  writeFileSync(path, content);
  return path;
}

describe('mapFile', () => {
  test('maps the file itself when it may', () => {
    const path = dataFile();
    const bytes = mapFile(path);
    expect(Buffer.from(bytes).toString()).toBe(readFileSync(path, 'utf8'));
  });

  test('a file it may only read is copied once to the writable directory and the copy mapped', () => {
    const path = dataFile();
    const copyDir = join(tempDir('cache'), 'ipintel');
    const { map, asked } = mapOnlyUnder(copyDir);
    const bytes = mapFile(path, { copyDir, map });
    expect(Buffer.from(bytes).toString()).toBe(readFileSync(path, 'utf8'));
    const [copy] = readdirSync(copyDir);
    expect(copy).toMatch(/^copy-[0-9a-f]{16}-city\.mmdb$/);
    expect(statSync(join(copyDir, copy!)).mode & 0o777).toBe(0o600);
    expect(asked).toEqual([path, join(copyDir, copy!)]);
    const copiedAt = statSync(join(copyDir, copy!)).mtimeMs;
    mapFile(path, { copyDir, map });
    expect(readdirSync(copyDir)).toEqual([copy!]);
    expect(statSync(join(copyDir, copy!)).mtimeMs).toBe(copiedAt);
  });

  test('a new version of the file gets a new copy; the old copy goes', () => {
    const path = dataFile();
    const copyDir = tempDir('cache');
    const { map } = mapOnlyUnder(copyDir);
    mapFile(path, { copyDir, map });
    const [first] = readdirSync(copyDir);
    writeFileSync(path, 'a newer, longer database '.repeat(100));
    const bytes = mapFile(path, { copyDir, map });
    expect(Buffer.from(bytes).toString()).toBe(readFileSync(path, 'utf8'));
    const now = readdirSync(copyDir);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual([first!]);
  });

  test('without a writable directory, or when the copy fails, the file is read into memory and that is said', () => {
    const path = dataFile();
    const blocked = join(tempDir('cache'), 'a-file');
    writeFileSync(blocked, 'in the way');
    const errors = spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (const copyDir of [undefined, join(blocked, 'ipintel')]) {
        const bytes = mapFile(path, { copyDir, map: mapOnlyUnder('/nowhere').map });
        expect(Buffer.from(bytes).toString()).toBe(readFileSync(path, 'utf8'));
      }
      expect(errors).toHaveBeenCalledTimes(2);
      expect(errors.mock.calls.map(([message]) => String(message)).join('\n')).toContain('into memory');
    } finally {
      errors.mockRestore();
    }
  });

  test('any other failure is thrown: a missing file is not a permission problem', () => {
    const missing = join(tempDir('data'), 'absent.mmdb');
    expect(() => mapFile(missing, { copyDir: tempDir('cache') })).toThrow();
    const other = () => {
      throw refused('EIO');
    };
    expect(() => mapFile(dataFile(), { copyDir: tempDir('cache'), map: other })).toThrow('EIO');
  });
});
