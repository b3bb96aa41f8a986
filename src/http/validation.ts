import { toValidationBody, type ValidationBody } from './errors';

interface Issue {
  path: string;
  message?: string;
  value?: unknown;
  schema?: unknown;
}

interface UnionSchema {
  anyOf?: { const?: unknown; type?: string; format?: string }[];
  error?: unknown;
}

interface ElysiaValidationError {
  type: string;
  value: unknown;
  all: Issue[];
}

const REQUIRED = 'Expected required property';

/**
 * Elysia's ValidationError in the spec's 400 shape: a schema's own `error` message is the field's
 * message, "Expected union value" names what was expected, and a coerced query or path value that
 * broke a constraint (it arrives without its path) is found again by its value.
 */
export function validationBody(error: ElysiaValidationError, request: Request, params: Record<string, string> = {}): ValidationBody {
  const issues = error.all.map((issue) => {
    let path = issue.path;
    if (path === '' && error.type === 'property') path = locateCoerced(request, params, error.value) ?? '';
    return { path, message: describe(issue) };
  });
  // A missing field also fails its type check; "required" says all there is to say.
  const missing = new Set(issues.filter((issue) => issue.message === REQUIRED).map((issue) => issue.path));
  return toValidationBody(issues.filter((issue) => !missing.has(issue.path) || issue.message === REQUIRED));
}

function describe(issue: Issue): string {
  const message = issue.message ?? 'invalid';
  const custom = (issue.schema as UnionSchema | undefined)?.error;
  if (typeof custom === 'string' && message !== REQUIRED) return custom;
  const branches = (issue.schema as UnionSchema | undefined)?.anyOf;
  if (message !== 'Expected union value' || !branches?.length) return message;
  if (branches.every((branch) => branch.const !== undefined)) {
    return `Expected one of: ${branches.map((branch) => JSON.stringify(branch.const)).join(', ')}`;
  }
  // Elysia writes a coerced number as a union of a numeric string and the number itself.
  const types = branches.map((branch) =>
    branch.type === 'string' && (branch.format === 'numeric' || branch.format === 'integer') ? (branch.format === 'integer' ? 'integer' : 'number') : branch.type ?? 'value',
  );
  return `Expected ${[...new Set(types)].join(' or ')}`;
}

function locateCoerced(request: Request, params: Record<string, string>, value: unknown): string | undefined {
  const candidates: string[] = [];
  const matches = (raw: string) => raw === String(value) || (typeof value === 'number' && raw.trim() !== '' && Number(raw) === value);
  for (const [name, raw] of new URL(request.url).searchParams) if (matches(raw)) candidates.push(name);
  for (const [name, raw] of Object.entries(params)) if (typeof raw === 'string' && matches(raw)) candidates.push(name);
  const unique = [...new Set(candidates)];
  return unique.length === 1 ? unique[0] : undefined;
}
