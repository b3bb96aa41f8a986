/** svc-server-sdk: the REST API client, its retry rule and error, and the edge ingest signature. */
export { createServerClient, type CallOptions, type ClickExport, type ServerClient, type ServerClientOptions } from './client.js';
export { ServerApiError, type ErrorBody } from './errors.js';
export { IngestError, sendClickBatch, signIngestBody, SIGNATURE_HEADER, type IngestAnswer, type IngestBody, type IngestClickRow, type SendClicksOptions } from './ingest.js';
export { backoffMs, DEFAULT_RETRY, retryAfterMs, type Replay, type RetryOptions } from './retry.js';
export type { Answer, components, Method, operations, paths, Query, RequestBody, UndocumentedAnswer } from './types.js';
