/** The error collector of the rule parser: every problem under its exact dotted path. */
import type { TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';

export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

export class FieldErrors {
  /** No prototype: a rule's key may be named `constructor` or `toString`. */
  readonly fields: Record<string, string[]> = Object.create(null);
  private count = 0;

  add(path: string, message: string): void {
    const messages = (this.fields[path] ??= []);
    if (messages.includes(message)) return;
    messages.push(message);
    this.count++;
  }

  get any(): boolean {
    return this.count > 0;
  }
}

/**
 * Checks `value` against a TypeBox shape, reporting under `path`: an unknown key as
 * `path.key` "unknown field", a missing one as "is required", else the schema's `error` text.
 */
export function checkShape(schema: TSchema, value: unknown, path: string, errors: FieldErrors): boolean {
  if (Value.Check(schema, value)) return true;
  const missing = new Set<string>();
  for (const issue of Value.Errors(schema, value)) {
    const at = path + issue.path.split('/').map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');
    if (missing.has(at)) continue;
    if (issue.type === ValueErrorType.ObjectAdditionalProperties) errors.add(at, 'unknown field');
    else if (issue.type === ValueErrorType.ObjectRequiredProperty) {
      missing.add(at);
      errors.add(at, 'is required');
    } else {
      const custom = (issue.schema as { error?: unknown }).error;
      errors.add(at, typeof custom === 'string' ? custom : issue.message);
    }
  }
  return false;
}

/** A value quoted for a message, cut short so an error never echoes a large input. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
