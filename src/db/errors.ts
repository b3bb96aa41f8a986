/** The `code` a driver or the database put on an error (an SQLSTATE, or a driver's own name), if any. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when Postgres (or PGlite) refused a statement with an SQLSTATE: the statement ran and
 * rolled back, so nothing of it was committed. A network error has no SQLSTATE; such a
 * statement may or may not have committed.
 */
export function isStatementRefused(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08');
}

/**
 * The database refused text it cannot hold: U+0000 in a text parameter (22021) or a `\u0000`
 * escape inside JSON read as text (22P05). Such a value came from the client, so it is a 400.
 */
export function isUnstorableText(error: unknown): boolean {
  const code = errorCode(error);
  return code === '22021' || code === '22P05';
}

/**
 * The database refused the data itself (SQLSTATE class 22, data exception, or 23, integrity
 * constraint violation): retrying the same values can never succeed. Anything else (a lost
 * connection, a read-only or full database) may succeed when retried.
 */
export function isDataRefused(error: unknown): boolean {
  return isStatementRefused(error) && /^2[23]/.test(errorCode(error)!);
}

/** The database handle was closed by its owner (a driver's pool ended, or PGlite closed): no retry on it can succeed. */
export function isHandleClosed(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'CONNECTION_ENDED' || code === 'CONNECTION_DESTROYED' || (error as { message?: unknown } | null)?.message === 'PGlite is closed';
}

/** A unique violation of `constraint`; Postgres names it in `constraint_name` (porsager) or `constraint` (PGlite). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; constraint_name?: unknown; constraint?: unknown };
  return e.code === '23505' && (e.constraint_name === constraint || e.constraint === constraint);
}
