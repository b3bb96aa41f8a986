import { describe, expect, test } from 'bun:test';
import { attributionSettings, DEFAULT_ATTRIBUTION_SETTINGS } from '../../src/attribution/attribution.model';
import { compareDeviceType, compareOsVersion, deviceTypeOf, osFamilyOf, sameOsFamily } from '../../src/attribution/device-signals';
import { utcDays } from '../../src/attribution/tiers/view-through';

describe('device signals', () => {
  test('platforms map to the OS family and device type a click records', () => {
    expect([osFamilyOf('ios'), osFamilyOf('fire_tv'), osFamilyOf('samsung_tv'), osFamilyOf('lg_tv'), osFamilyOf('macos'), osFamilyOf('roku'), osFamilyOf('web')]).toEqual([
      'iOS',
      'Android',
      'Tizen',
      'webOS',
      'Mac OS',
      null,
      null,
    ]);
    expect([deviceTypeOf('ios'), deviceTypeOf('roku'), deviceTypeOf('windows'), deviceTypeOf('xbox')]).toEqual([null, 'smarttv', 'desktop', 'console']);
    expect(sameOsFamily('iOS', 'ios')).toBe(true);
    expect(sameOsFamily(null, null)).toBe(false);
  });

  test('versions compare by major version; unknown or uninformative values decide nothing', () => {
    expect(compareOsVersion('17.4.1', '17.4', 'iOS')).toBe('match');
    expect(compareOsVersion('17.4.1', '16.7', 'iOS')).toBe('mismatch');
    expect(compareOsVersion('14', '10', 'Android')).toBe('unknown');
    expect(compareOsVersion('14', '13', 'Android')).toBe('mismatch');
    expect(compareOsVersion(null, '17', 'iOS')).toBe('unknown');
    expect(compareOsVersion('5', 'One', 'Xbox')).toBe('unknown');
    expect(compareDeviceType('smarttv', 'mobile')).toBe('mismatch');
    expect(compareDeviceType(null, 'mobile')).toBe('unknown');
  });
});

describe('attribution settings', () => {
  test('absent or unusable values take the documented defaults; zero switches a tier off', () => {
    expect(attributionSettings({})).toEqual(DEFAULT_ATTRIBUTION_SETTINGS);
    expect(attributionSettings(null)).toEqual(DEFAULT_ATTRIBUTION_SETTINGS);
    const custom = attributionSettings({ click_lookback_days: 30, household_window_hours: 0, view_through_window_hours: -1, probabilistic_window_hours: '12', skan_enabled: true });
    expect(custom).toEqual({ ...DEFAULT_ATTRIBUTION_SETTINGS, clickLookbackDays: 30, householdWindowHours: 0, skanEnabled: true });
  });

  test('a window spanning midnight UTC covers both days', () => {
    const days = utcDays(new Date('2026-03-09T23:00:00Z'), new Date('2026-03-10T00:30:00Z')).map((d) => d.toISOString().slice(0, 10));
    expect(days).toEqual(['2026-03-09', '2026-03-10']);
    expect(utcDays(new Date('2026-03-10T01:00:00Z'), new Date('2026-03-10T02:00:00Z')).length).toBe(1);
  });
});
