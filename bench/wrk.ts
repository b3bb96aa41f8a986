import { existsSync } from 'node:fs';

/**
 * Benches drive load with Debian's wrk and nothing else: a missing wrk is installed when this
 * process may (root with apt-get), else the bench stops with the command to run.
 */
export const WRK = '/usr/bin/wrk';

export function requireWrk(): string {
  if (existsSync(WRK)) return WRK;
  if (process.getuid?.() === 0 && Bun.which('apt-get')) {
    console.error('bench: wrk is missing; installing Debian\'s package');
    // apt's output goes to stderr: stdout carries only the bench's JSON line.
    const install = Bun.spawnSync(['apt-get', 'install', '-y', 'wrk'], { stdout: 'pipe', stderr: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    process.stderr.write(install.stdout);
    if (install.exitCode === 0 && existsSync(WRK)) return WRK;
  }
  console.error('bench: this benchmark needs wrk; install it with `sudo apt-get install -y wrk` and run it again');
  process.exit(2);
}
