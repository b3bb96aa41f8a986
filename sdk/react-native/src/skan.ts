import type { CoarseConversionValue, ConversionValueUpdater } from './config';

const COARSE: readonly string[] = ['low', 'medium', 'high'];

/**
 * Checks a conversion value update as Apple takes it (fine 0 to 63; coarse low, medium or high)
 * and hands it to the app's native function. Elsewhere than on iOS there is no SKAdNetwork:
 * nothing happens.
 */
export async function updateConversionValue(
  os: string,
  update: ConversionValueUpdater | undefined,
  fine: number,
  coarse?: CoarseConversionValue,
  lockWindow = false,
): Promise<void> {
  if (!Number.isInteger(fine) || fine < 0 || fine > 63) throw new TypeError('svc: the fine conversion value is a whole number from 0 to 63');
  if (coarse !== undefined && !COARSE.includes(coarse)) throw new TypeError("svc: the coarse conversion value is 'low', 'medium' or 'high'");
  if (typeof lockWindow !== 'boolean') throw new TypeError('svc: lockWindow is true or false');
  if (os !== 'ios') return;
  if (!update) throw new Error('svc: configure updateConversionValue with a native SKAdNetwork function (docs/sdk.md)');
  await update(fine, coarse, lockWindow);
}
