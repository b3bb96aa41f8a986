import type { Parsed } from '../timestamp';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
// At least two labels, and the last one starts with a letter: a public hostname, not an IP literal.
const HOSTNAME = new RegExp(`^(?:${LABEL}\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`);

/**
 * A hostname with an optional port, lower-cased: the value a request's Host header is compared
 * with. No scheme, path, credentials or IP literal; non-ASCII names in punycode, as browsers send.
 */
export function parseDomain(raw: string): Parsed<string> {
  const error = 'must be a hostname with an optional port, such as go.example.com or go.example.com:8443';
  const lower = raw.toLowerCase();
  const match = /^([^:]+)(?::([0-9]{1,5}))?$/.exec(lower);
  if (!match) return { error };
  const [, host = '', port] = match;
  if (host.length > 253 || !HOSTNAME.test(host)) return { error };
  if (port !== undefined) {
    const number = Number(port);
    if (number < 1 || number > 65535 || port.startsWith('0')) return { error };
  }
  return { value: lower };
}
