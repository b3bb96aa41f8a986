import { afterAll, expect, mock, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeAsyncStorage, FakeOs, settle } from './support/fake-native';

// The package's entry point with React Native's modules replaced: what an app's bundle runs.
const os = new FakeOs();
const storage = new FakeAsyncStorage();
const requests: { url: string; body: any }[] = [];
mock.module('react-native', () => ({ Linking: os.linking, AppState: os.appState, Platform: { OS: 'ios', Version: '16.4', constants: {} } }));
mock.module('@react-native-async-storage/async-storage', () => ({ default: storage }));
mock.module('react-native-device-info', () => ({ default: { getVersion: () => '9.9.9' } }));
const realFetch = globalThis.fetch;
globalThis.fetch = (async (url: string, init: RequestInit) => {
  requests.push({ url, body: JSON.parse(String(init.body)) });
  const path = new URL(url).pathname;
  const body = path.endsWith('/install')
    ? { install_id: '01INSTALL', attribution: { method: 'ORGANIC', campaign: null, click_id: null, deep_link_path: null }, is_reattribution: false }
    : path.endsWith('/forget')
      ? { id: '01ERASURE', status: 'pending' }
      : { accepted: 1 };
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
}) as typeof fetch;
afterAll(() => {
  globalThis.fetch = realFetch;
});

const svc = await import('../src/index');

test('the entry point runs on Linking, AppState, Platform, AsyncStorage and react-native-device-info', async () => {
  expect(() => svc.consentStatus()).toThrow('configure()');
  await expect(svc.flush()).rejects.toThrow('call configure() first');
  const configured = svc.configure({ sdkKey: 'sk_mod', baseUrl: 'https://api.example/', requireConsent: true });
  svc.logEvent('before_ready');
  await configured;
  expect(svc.consentStatus()).toBe('pending');
  expect(() => svc.logEvent('x'.repeat(65))).toThrow(TypeError);
  await svc.setConsent(true);
  await svc.flush();
  await settle();
  expect(requests[0]).toMatchObject({ url: 'https://api.example/api/sdk/v1/install', body: { platform: 'ios', os_version: '16.4', app_version: '9.9.9' } });
  expect(requests.at(-1)!.body.events.map((e: { name: string }) => e.name)).toEqual(['session_start', 'before_ready']);
  expect([...storage.map.keys()].some((key) => key.startsWith('svc_sdk:sk_mod:'))).toBe(true);
  expect(await svc.forget()).toBe('01ERASURE');
  expect(requests.at(-1)).toEqual({ url: 'https://api.example/api/sdk/v1/forget', body: { device_id: requests[0]!.body.device_id } });
  expect([...storage.map.keys()]).toEqual([]);
  expect(os.urlListeners.size + os.stateListeners.size).toBe(0);
  await expect(svc.flush()).rejects.toThrow('call configure() first');
});

test('the version sent as sdk_version is the package\'s', () => {
  expect(JSON.parse(readFileSync(join(import.meta.dir, '..', 'package.json'), 'utf8')).version).toBe(svc.SDK_VERSION);
});
