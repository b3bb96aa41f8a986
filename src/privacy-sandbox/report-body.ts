import { payloadTooLarge, validationError } from '../http/errors';
import { capStream } from '../http/http.plugin';
import { NOT_JSON, parseJsonBody } from '../http/json-body';

/**
 * The body of a report POST, read under its own limit, far below the app's: a browser's report is
 * a few KiB (docs/privacy-sandbox.md, "Reports"). A declared length over it is refused unread.
 */
export const MAX_REPORT_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parsed JSON of any shape (the service checks the shape); 413 past the limit, 400 when not JSON
 * or nested too deep. Stored as received, so a lone surrogate is kept as U+FFFD, not refused.
 */
export async function readReportJson({ request }: { request: Request }): Promise<unknown> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > MAX_REPORT_BYTES) throw payloadTooLarge();
  const bytes = request.body ? new Uint8Array(await new Response(capStream(request.body, MAX_REPORT_BYTES)).arrayBuffer()) : new Uint8Array();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw validationError({}, [NOT_JSON]);
  }
  return parseJsonBody(text, { loneSurrogates: 'replace' });
}
