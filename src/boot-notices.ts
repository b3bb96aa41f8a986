import type { Config } from './config/config';
import { pubsubBootNotice } from './subscriptions/pubsub-auth';

/** The lines the boot log prints about settings that leave a receiver unchecked, or shut. */
export function configNotices(config: Pick<Config, 'googlePubsub' | 'skanVerify'>): string[] {
  const notices = [pubsubBootNotice(config.googlePubsub)];
  if (!config.skanVerify) notices.push('SKAN_VERIFY=off: SKAdNetwork postbacks are stored even when their signature fails (unsafe, for test set-ups only)');
  return notices.filter((notice): notice is string => notice !== undefined);
}
