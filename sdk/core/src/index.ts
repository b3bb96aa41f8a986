/**
 * The platform-independent core of the svc-attribution SDKs (docs/sdk.md): sdk/web and
 * sdk/react-native are this core plus a platform's storage, clock, transport and life cycle.
 */
export { backoffDelay, EVENTS_RETRY, INSTALL_RETRY, isRetryable, JITTER, retryAfterMs, type RetryPolicy } from './backoff';
export { CLICK_ID_LIFETIME_MS, CLICK_ID_PARAM, clickIdFromUrl, keptClick, rememberClick, type StoredClick } from './click-id';
export { pause, systemClock, Waiter, type Clock } from './clock';
export { consentChange, initialConsent, type ConsentDecision, type ConsentStatus } from './consent';
export { DEEP_LINK_PATH_PARAM, deepLinkPathFromUrl, parseDeepLink, type DeepLink } from './deep-link';
export { queuedEvent, type EventOptions } from './events';
export { BATCH_MAX_BYTES, BATCH_MAX_EVENTS, EventQueue, QUEUE_CAP, type QueuedEvent } from './queue';
export { randomId } from './random-id';
export { sendWithRetry, type RetryDeps } from './retry';
export { FLUSH_AT_EVENTS, FLUSH_INTERVAL_MS, SdkCore, type CoreEnv, type Lifecycle, type Platform } from './sdk';
export { SESSION_TIMEOUT_MS, touchSession } from './session';
export { createStore, storeNamespace, type KeyValue, type Store } from './storage';
export { createTransport, KEEPALIVE_BYTES, utf8Bytes, type FetchLike, type Outcome, type Post, type RequestLike, type ResponseLike } from './transport';
export type { Attribution, InstallResponse, OpenResponse, SdkConfig } from './types';
export { isAbsoluteUrl, percentDecode, urlParam } from './url-params';
