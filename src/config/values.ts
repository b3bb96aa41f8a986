/**
 * The parsers of single values shared by the variables: files that must exist, URLs, switches,
 * proxy hops, credential files read at boot. Each failure is a ConfigError naming the variable,
 * and never echoes a secret.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { SECRET_VARIABLES } from './environment';

/** A bad value: the message names the variable and why, so the boot fails fast and says so. */
export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`invalid ${variable}: ${reason}`);
  }
}

/** A file the node maps later: a wrong path stops the boot here rather than the first lookup. */
export function existingFile(variable: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const path = resolve(value);
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    // Reported below, with the path.
  }
  if (!isFile) throw new ConfigError(variable, `${JSON.stringify(path)} is not an existing file`);
  return path;
}

/** A credential file read now, so a bad one stops the boot; its reader's message follows "the file". */
export function credential(variable: string, read: () => unknown): void {
  try {
    read();
  } catch (error) {
    throw new ConfigError(variable, `the file ${(error as Error).message}`);
  }
}

export const isOn = (value: string) => ['on', 'true', 'yes', '1'].includes(value);

/** TRUST_PROXY: unset/off = 0 hops; on/true/yes = 1 (one load balancer); a number = that many hops. */
export function proxyHops(value: string | undefined): number {
  if (value === undefined) return 0;
  if (/^[0-9]+$/.test(value)) return Number(value);
  return isOn(value) ? 1 : 0;
}

export function parseUrl(variable: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(variable, `${SECRET_VARIABLES.has(variable) ? 'the value' : JSON.stringify(value)} is not a valid URL`);
  }
}

/** An http(s) URL without a trailing slash, so paths can be appended to it. */
export function httpUrl(variable: string, value: string): string {
  parseUrl(variable, value);
  return value.replace(/\/+$/, '');
}
