import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const ROOT = join(import.meta.dir, '..', '..');
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: unknown }> };
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The Node.js releases the README's first paragraph promises, as the lowest version of each line. */
function promisedNodeVersions(): string[] {
  const sentence = /needs only Node\.js \(([^)]*)\)/.exec(readme)?.[1];
  if (!sentence) throw new Error('README no longer names the Node.js versions it needs');
  return [...sentence.matchAll(/(\d+)(?:\.(\d+))?(?: or later| and up)/g)].map(([, major, minor]) => `${major}.${minor ?? 0}.0`);
}

/** Every package of the lock file whose `engines.node` range leaves `version` out (npm's EBADENGINE). */
function refusing(version: string): string[] {
  return Object.entries(lock.packages)
    .filter(([, entry]) => {
      const range = (entry.engines as { node?: unknown } | undefined)?.node;
      return typeof range === 'string' && !semver.satisfies(version, range);
    })
    .map(([path, entry]) => `${path} (${(entry.engines as { node: string }).node})`);
}

describe('the Node.js versions the README names', () => {
  test('are read from the README: the lowest 20, 22 and 24 releases', () => {
    expect(promisedNodeVersions()).toEqual(['20.19.0', '22.13.0', '24.0.0']);
  });

  test('satisfy every installed package, so npm ci prints no EBADENGINE', () => {
    for (const version of promisedNodeVersions()) expect({ version, refusing: refusing(version) }).toEqual({ version, refusing: [] });
  });

  test('the check sees a package that needs a newer Node', () => {
    expect(refusing('18.0.0').length).toBeGreaterThan(0);
  });
});
