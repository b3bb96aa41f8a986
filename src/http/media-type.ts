/** The media type of a Content-Type header, lower-case, without its parameters (`; charset=...`). */
export function mediaTypeOf(contentType: string): string {
  const end = contentType.indexOf(';');
  return (end < 0 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

export const FORM_URLENCODED = 'application/x-www-form-urlencoded';
