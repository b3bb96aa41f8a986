import { afterAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { createServiceAccountTokens, readServiceAccountFile } from '../../src/shared/google-service-account';
import { tempDir } from '../support/temp-dir';
import { serviceAccount } from '../uninstalls/support';

const SCOPE = 'https://www.googleapis.com/auth/example';

/** A token endpoint on loopback: answers what `next` says and keeps every assertion it was sent. */
function tokenEndpoint() {
  const assertions: string[] = [];
  let next: () => Response = () => Response.json({ access_token: `token-${assertions.length}`, expires_in: 3600 });
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const form = new URLSearchParams(await request.text());
      expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
      assertions.push(form.get('assertion')!);
      return next();
    },
  });
  afterAll(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}/token`, assertions, answer: (make: () => Response) => (next = make) };
}

describe('readServiceAccountFile', () => {
  const dir = tempDir('service-account');
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  test("reads the fields a grant needs from Google's key file", () => {
    const issued = serviceAccount('a-project');
    expect(readServiceAccountFile(issued.path)).toEqual({
      clientEmail: issued.clientEmail,
      privateKey: expect.stringContaining('-----BEGIN PRIVATE KEY-----'),
      privateKeyId: 'key-1',
      projectId: 'a-project',
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
  });

  test('refuses what is not a service-account key, saying why and never what the file holds', () => {
    const cases: [string, string][] = [
      [join(dir, 'missing.json'), 'cannot be read (ENOENT)'],
      [file('cut.json', '{"private_key": "SECRETKEYMATERIAL"'), 'is not a JSON file'],
      [file('null.json', 'null'), 'is not a service-account key file'],
      [file('user.json', JSON.stringify({ type: 'authorized_user', client_email: 'a@b', private_key: 'SECRETKEYMATERIAL' })), 'is not a service-account key file'],
      [file('no-key.json', JSON.stringify({ type: 'service_account', client_email: 'a@b' })), 'is not a service-account key file'],
      [file('weak.json', JSON.stringify({ type: 'service_account', client_email: 'a@b', private_key: 'SECRETKEYMATERIAL' })), 'not an RSA private key'],
    ];
    for (const [path, expected] of cases) {
      let message = '';
      try {
        readServiceAccountFile(path);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(expected);
      expect(message).not.toContain('SECRETKEYMATERIAL');
    }
  });
});

describe('createServiceAccountTokens', () => {
  const issued = serviceAccount('tokens');
  const account = readServiceAccountFile(issued.path);
  const endpoint = tokenEndpoint();

  test('signs an RS256 assertion for the scope and the endpoint, and keeps the token until a minute before it expires', async () => {
    let now = Date.parse('2026-06-01T10:00:00Z');
    const tokens = createServiceAccountTokens({ account, tokenUrl: endpoint.url, scope: SCOPE, timeoutMs: 5000, now: () => now });
    const before = endpoint.assertions.length;
    expect(await tokens.accessToken()).toEqual({ ok: true, token: `token-${before + 1}` });
    const assertion = endpoint.assertions.at(-1)!;
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-1' });
    const publicKey = await importSPKI(issued.publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'RS256');
    const { payload } = await jwtVerify(assertion, publicKey, { issuer: issued.clientEmail, audience: endpoint.url, currentDate: new Date(now) });
    expect(payload).toMatchObject({ scope: SCOPE, iat: now / 1000, exp: now / 1000 + 3600 });

    now += 3600_000 - 61_000;
    expect(await tokens.accessToken()).toEqual({ ok: true, token: `token-${before + 1}` });
    now += 2_000;
    expect(await tokens.accessToken()).toEqual({ ok: true, token: `token-${before + 2}` });
    expect(endpoint.assertions.length).toBe(before + 2);
  });

  test('callers at once share one exchange; invalidate makes the next call exchange again', async () => {
    const tokens = createServiceAccountTokens({ account, tokenUrl: endpoint.url, scope: SCOPE, timeoutMs: 5000 });
    const before = endpoint.assertions.length;
    const answers = await Promise.all([tokens.accessToken(), tokens.accessToken(), tokens.accessToken()]);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(endpoint.assertions.length).toBe(before + 1);
    tokens.invalidate();
    await tokens.accessToken();
    expect(endpoint.assertions.length).toBe(before + 2);
  });

  test('a busy or failing endpoint is retryable; a refusal is not; neither is kept', async () => {
    const tokens = createServiceAccountTokens({ account, tokenUrl: endpoint.url, scope: SCOPE, timeoutMs: 5000 });
    const cases: [Response, boolean, string][] = [
      [Response.json({ error: 'rate' }, { status: 429 }), true, 'token exchange: HTTP 429 rate'],
      [new Response('down', { status: 503 }), true, 'token exchange: HTTP 503'],
      [Response.json({ error: 'invalid_grant' }, { status: 400 }), false, 'token exchange: HTTP 400 invalid_grant'],
      [Response.json({ token_type: 'Bearer' }), false, 'token exchange: HTTP 200'],
    ];
    for (const [response, retryable, reason] of cases) {
      endpoint.answer(() => response.clone() as Response);
      expect(await tokens.accessToken()).toEqual({ ok: false, retryable, reason });
    }
    endpoint.answer(() => Response.json({ access_token: 'after', expires_in: 3600 }));
    expect(await tokens.accessToken()).toEqual({ ok: true, token: 'after' });
  });

  test('an endpoint out of reach is retryable', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}/token`;
    closed.stop(true);
    const tokens = createServiceAccountTokens({ account, tokenUrl: url, scope: SCOPE, timeoutMs: 5000 });
    const answer = await tokens.accessToken();
    expect(answer).toMatchObject({ ok: false, retryable: true });
    expect(!answer.ok && answer.reason).toStartWith('token exchange: ');
  });
});
