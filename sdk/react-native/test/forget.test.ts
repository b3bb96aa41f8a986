import { expect, test } from 'bun:test';
import { ERASURE_ID, FakeDevice } from './support/fake-native';

/** forget(): the right to erasure works whatever the consent, and asks the server once. */

test('after consent is denied, forget() still asks the server to erase the device, then leaves nothing stored', async () => {
  const device = new FakeDevice();
  const sdk = await device.launch();
  await device.clock.advance(0);
  const deviceId = device.server.to('install')[0]!.body.device_id;
  sdk.setConsent(false);
  expect(await sdk.forget()).toBe(ERASURE_ID);
  expect(device.server.to('forget').map((request) => request.body)).toEqual([{ device_id: deviceId }]);
  expect(device.server.to('forget')[0]!.headers['X-SDK-Key']).toBe('sk_test');
  await sdk.persisted();
  expect([...device.storage.map.keys()]).toEqual([]);
});

test('a device that never sent anything (consent still pending) is forgotten locally, without a request', async () => {
  const device = new FakeDevice();
  const sdk = await device.launch({ requireConsent: true });
  sdk.logEvent('held');
  await device.clock.advance(0);
  expect(await sdk.forget()).toBeNull();
  expect(device.server.requests).toEqual([]);
  await sdk.persisted();
  expect([...device.storage.map.keys()]).toEqual([]);
});

test('a 5xx is retried; a refusal throws and keeps the device id, so a later forget() asks again', async () => {
  const device = new FakeDevice();
  const first = await device.launch();
  await device.clock.advance(0);
  const deviceId = device.server.to('install')[0]!.body.device_id;
  device.server.answer('forget', { status: 503 }, { status: 401, body: { error: 'unauthorized' } });
  const refused = first.forget().then(
    () => 'resolved',
    (error: Error) => error.message,
  );
  await device.clock.advance(60_000);
  expect(await refused).toBe('svc: forget failed (status 401)');
  expect(device.server.to('forget')).toHaveLength(2);
  await first.persisted();
  expect([...device.storage.map.keys()].some((key) => key.endsWith('device'))).toBe(true);

  const again = await device.launch({ requireConsent: true });
  expect(await again.forget()).toBe(ERASURE_ID);
  expect(device.server.to('forget').map((request) => request.body.device_id)).toEqual([deviceId, deviceId, deviceId]);
});
