/** The headers the spec puts on every response, errors and 405s included; the spec's values, not the code's. */
export function expectSecurityHeaders(response: Response): void {
  const missing = Object.entries({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
  }).filter(([name, value]) => response.headers.get(name) !== value);
  if (missing.length > 0) throw new Error(`status ${response.status} lacks ${missing.map(([name]) => name).join(', ')}`);
}

/** The `name=value` of the cookie a response sets: what a browser sends back. */
export const cookieOf = (response: Response): string => response.headers.get('set-cookie')!.split(';')[0]!;
