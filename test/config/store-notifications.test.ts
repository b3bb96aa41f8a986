import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, DEFAULT_GOOGLE_JWKS_URL, DEFAULT_GOOGLE_PLAY_API_URL, loadConfig } from '../../src/config/config';
import { configNotices } from '../../src/boot-notices';
import { readPlayAccount } from '../../src/subscriptions/google-play';
import { serviceAccount } from '../uninstalls/support';
import { tempDir } from '../support/temp-dir';

const base = () => ({ DATA_DIR: tempDir('config'), SESSION_SECRET: 'a-session-secret-that-is-long-enough-0123456789' });

function file(name: string, text: string): string {
  const path = join(tempDir('config-file'), name);
  writeFileSync(path, text);
  return path;
}

describe('store notification settings', () => {
  test('defaults: no extra roots, no Play credentials, Google endpoints, push checks required but none set', () => {
    const config = loadConfig(base());
    expect(config.appleRootCerts).toEqual([]);
    expect(config.googlePlayCredentials).toBeUndefined();
    expect(config.googlePlayApiUrl).toBe(DEFAULT_GOOGLE_PLAY_API_URL);
    expect(config.googlePubsub).toEqual({ auth: true, token: undefined, audience: undefined, email: undefined, jwksUrl: DEFAULT_GOOGLE_JWKS_URL });
  });

  test('values are read: root paths (comma-separated), credentials, API root with one trailing slash, push checks', () => {
    const first = file('a.pem', 'x');
    const second = file('b.pem', 'y');
    const key = file('key.json', '{}');
    const config = loadConfig({
      ...base(),
      APPLE_ROOT_CERTS: ` ${first} , ${second},`,
      GOOGLE_PLAY_CREDENTIALS: key,
      GOOGLE_PLAY_API_URL: 'http://127.0.0.1:9999/',
      GOOGLE_PUBSUB_TOKEN: 'abcdefghijklmnop',
      GOOGLE_PUBSUB_AUDIENCE: 'https://api.example.com/api/subscriptions/google',
      GOOGLE_PUBSUB_EMAIL: 'push@project.iam.gserviceaccount.com',
      GOOGLE_PUBSUB_JWKS_URL: 'http://127.0.0.1:9999/certs',
    });
    expect(config.appleRootCerts).toEqual([first, second]);
    expect(config.googlePlayCredentials).toBe(key);
    expect(config.googlePlayApiUrl).toBe('http://127.0.0.1:9999/');
    expect(config.googlePubsub).toEqual({
      auth: true,
      token: 'abcdefghijklmnop',
      audience: 'https://api.example.com/api/subscriptions/google',
      email: 'push@project.iam.gserviceaccount.com',
      jwksUrl: 'http://127.0.0.1:9999/certs',
    });
  });

  test('refusals name the variable; the push token is never echoed', () => {
    const cases: [Record<string, string>, string][] = [
      [{ APPLE_ROOT_CERTS: '/no/such/root.pem' }, 'APPLE_ROOT_CERTS'],
      [{ GOOGLE_PLAY_CREDENTIALS: '/no/such/key.json' }, 'GOOGLE_PLAY_CREDENTIALS'],
      [{ GOOGLE_PLAY_API_URL: 'ftp://play' }, 'GOOGLE_PLAY_API_URL'],
      [{ GOOGLE_PUBSUB_TOKEN: 'short-secret' }, 'GOOGLE_PUBSUB_TOKEN'],
      [{ GOOGLE_PUBSUB_EMAIL: 'push@project.iam.gserviceaccount.com' }, 'GOOGLE_PUBSUB_EMAIL'],
      [{ GOOGLE_PUBSUB_JWKS_URL: 'not a url' }, 'GOOGLE_PUBSUB_JWKS_URL'],
      [{ GOOGLE_PUBSUB_AUTH: 'maybe' }, 'GOOGLE_PUBSUB_AUTH'],
      [{ GOOGLE_PUBSUB_AUTH: 'off', GOOGLE_PUBSUB_TOKEN: 'abcdefghijklmnop' }, 'GOOGLE_PUBSUB_AUTH'],
      [{ GOOGLE_PUBSUB_AUTH: 'off', GOOGLE_PUBSUB_AUDIENCE: 'https://api.example.com/api/subscriptions/google' }, 'GOOGLE_PUBSUB_AUTH'],
    ];
    for (const [env, variable] of cases) {
      let error: unknown;
      try {
        loadConfig({ ...base(), ...env });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
    }
    let message = '';
    try {
      loadConfig({ ...base(), GOOGLE_PUBSUB_TOKEN: 'short-secret' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('invalid GOOGLE_PUBSUB_TOKEN');
    expect(message).not.toContain('short-secret');
  });

  test('GOOGLE_PUBSUB_AUTH is on unless switched off, read case-insensitively', () => {
    const auth = (value: string) => loadConfig({ ...base(), GOOGLE_PUBSUB_AUTH: value }).googlePubsub.auth;
    expect(['on', 'ON', 'true', '1', ''].map(auth)).toEqual([true, true, true, true, true]);
    expect(['off', 'Off', 'false', 'no', '0'].map(auth)).toEqual([false, false, false, false, false]);
  });

  test('the boot log names what to set when no push check is, and says so when checks or signatures are off', () => {
    const notices = (env: Record<string, string>) => configNotices(loadConfig({ ...base(), ...env }));
    expect(notices({})).toEqual(['Google Play notifications (POST /api/subscriptions/google) answer 401: set GOOGLE_PUBSUB_TOKEN or GOOGLE_PUBSUB_AUDIENCE to accept them']);
    expect(notices({ GOOGLE_PUBSUB_TOKEN: 'abcdefghijklmnop' })).toEqual([]);
    expect(notices({ GOOGLE_PUBSUB_AUDIENCE: 'https://api.example.com/api/subscriptions/google' })).toEqual([]);
    expect(notices({ GOOGLE_PUBSUB_AUTH: 'off', SKAN_VERIFY: 'off' })).toEqual([
      'GOOGLE_PUBSUB_AUTH=off: Google Play notifications are accepted unchecked; anyone can post one (unsafe, for test set-ups only)',
      'SKAN_VERIFY=off: SKAdNetwork postbacks are stored even when their signature fails (unsafe, for test set-ups only)',
    ]);
  });

  test('a Play key file must be a service account key; the error names the variable and the file, never what it holds', () => {
    const notJson = file('bad.json', '{"private_key": "SECRETKEYMATERIAL"');
    expect(() => readPlayAccount(notJson)).toThrow(`GOOGLE_PLAY_CREDENTIALS: ${notJson} is not a JSON file`);
    expect(() => readPlayAccount(file('user.json', JSON.stringify({ type: 'authorized_user', client_id: 'x' })))).toThrow('is not a service-account key file');
    expect(() => readPlayAccount(file('weak.json', JSON.stringify({ type: 'service_account', client_email: 'a@b', private_key: 'SECRETKEYMATERIAL' })))).toThrow(
      'holds a private_key that is not an RSA private key',
    );
    const issued = serviceAccount('play-project');
    expect(readPlayAccount(issued.path)).toMatchObject({
      clientEmail: issued.clientEmail,
      privateKeyId: 'key-1',
      projectId: 'play-project',
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
  });
});
