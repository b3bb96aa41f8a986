#!/usr/bin/env node
// Adds the package-lock.json entries of platform-specific optional binaries a package declares
// but the lock lacks, without which `npm ci` stops with "Missing: <package> from lock file". Each
// pins the parent's version, with os/cpu/libc from the name's suffix, and is optional, so npm
// skips it where it does not apply.
//   node scripts/lock-platform-entries.mjs [--check]  # rewrite package-lock.json, or exit 1 if entries are missing
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const OS = { darwin: 'darwin', linux: 'linux', win32: 'win32', freebsd: 'freebsd' };
const CPU = { x64: 'x64', arm64: 'arm64', aarch64: 'arm64', ia32: 'ia32', arm: 'arm' };
const LIBC = { gnu: 'glibc', glibc: 'glibc', musl: 'musl' };

/** `...-linux-arm64-musl` -> {os: linux, cpu: arm64, libc: musl}; undefined for other names. */
export function platformOf(name) {
  const match = /-(darwin|linux|win32|freebsd)-(x64|arm64|aarch64|ia32|arm)(?:-(gnu|glibc|musl))?$/.exec(name);
  if (!match) return undefined;
  const [, os, cpu, libc] = match;
  return { os: OS[os], cpu: CPU[cpu], libc: libc ? LIBC[libc] : os === 'linux' ? 'glibc' : undefined };
}

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages ?? {};
const added = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const nested = `${base}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[nested] || packages[hoisted]) continue;
    const platform = platformOf(name);
    // Only exact versions: a range cannot be pinned without asking the registry.
    if (!platform || !/^\d+\.\d+\.\d+(?:-[\w.]+)?$/.test(version)) continue;
    const added_entry = { version, cpu: [platform.cpu] };
    if (platform.libc) added_entry.libc = [platform.libc];
    Object.assign(added_entry, { dev: entry.dev, optional: true, os: [platform.os] });
    if (!added_entry.dev) delete added_entry.dev;
    packages[hoisted] = added_entry;
    added.push(`${name}@${version}`);
  }
}

if (process.argv.includes('--check')) {
  if (added.length) console.log(`missing from package-lock.json:\n  ${added.join('\n  ')}`);
  process.exit(added.length ? 1 : 0);
}
if (added.length === 0) {
  console.log('package-lock.json already lists every platform binary');
} else {
  // npm keeps `packages` sorted by path with the root first; keep the diff minimal.
  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
  lock.packages = sorted;
  writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`added to package-lock.json:\n  ${added.join('\n  ')}`);
}
