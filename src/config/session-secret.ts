import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './values';

/**
 * A secret generated on first boot and kept under DATA_DIR, so the embedded default needs no
 * setup. Written to a private temporary file, then hard-linked into place: on EEXIST another
 * process won the race and its secret is read, so every process on one DATA_DIR agrees.
 */
export function persistentSecret(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  const existing = readSecret(file);
  if (existing !== undefined) return existing;
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new ConfigError('DATA_DIR', `cannot create ${dataDir}: ${(error as Error).message}`);
  }
  const temporary = join(dataDir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}`);
  writeFileSync(temporary, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  const secret = readSecret(file);
  if (secret === undefined) throw new ConfigError('SESSION_SECRET', `could not read the generated secret in ${file}`);
  return secret;
}

function readSecret(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (text.length < 32) throw new ConfigError('SESSION_SECRET', `the stored secret in ${file} is shorter than 32 characters; delete the file or set SESSION_SECRET`);
  return text;
}
