/**
 * A smart link's social preview: what a crawler or link-preview bot is shown on `/l/{slug}`
 * (og:title, og:description, og:image). Every key is optional; unknown keys are refused.
 */
import { Type as T } from '@sinclair/typebox';
import { CONTROL_CHARS, checkShape, FieldErrors } from '../tracking/smartlinks/rules/field-errors';
import { checkWebUrl } from '../shared/net/web-url';
import { MAX_URL_LENGTH } from '../shared/net/web-url';

export interface LinkPreview {
  title?: string;
  description?: string;
  image?: string;
}

export const MAX_PREVIEW_TITLE_LENGTH = 200;
export const MAX_PREVIEW_DESCRIPTION_LENGTH = 500;
const IMAGE_ERROR = `must be an absolute https URL of at most ${MAX_URL_LENGTH} characters`;

export const PreviewShape = T.Object(
  {
    title: T.Optional(T.String({ minLength: 1, maxLength: MAX_PREVIEW_TITLE_LENGTH, error: `must be 1 to ${MAX_PREVIEW_TITLE_LENGTH} characters` })),
    description: T.Optional(
      T.String({ minLength: 1, maxLength: MAX_PREVIEW_DESCRIPTION_LENGTH, error: `must be 1 to ${MAX_PREVIEW_DESCRIPTION_LENGTH} characters` }),
    ),
    image: T.Optional(T.String({ maxLength: MAX_URL_LENGTH, error: IMAGE_ERROR })),
  },
  { additionalProperties: false, error: 'must be an object {title, description, image} or null' },
);

/** The preview as stored (as given), or the errors under `preview.<key>`. */
export function parsePreview(raw: unknown, path = 'preview'): { value: LinkPreview } | { errors: Record<string, string[]> } {
  const errors = new FieldErrors();
  if (checkShape(PreviewShape, raw, path, errors)) {
    const preview = raw as LinkPreview;
    for (const key of ['title', 'description'] as const) {
      if (preview[key] !== undefined && CONTROL_CHARS.test(preview[key])) errors.add(`${path}.${key}`, 'must not contain control characters');
    }
    if (preview.image !== undefined) {
      const image = checkWebUrl(preview.image);
      if ('error' in image) errors.add(`${path}.image`, image.error);
      else if (image.url.protocol !== 'https:') errors.add(`${path}.image`, IMAGE_ERROR);
    }
  }
  return errors.any ? { errors: errors.fields } : { value: raw as LinkPreview };
}
