/**
 * True when Postgres (or PGlite) refused a statement with an SQLSTATE: the statement ran and
 * rolled back, so nothing of it was committed. A network error has no SQLSTATE; such a
 * statement may or may not have committed.
 */
export function isStatementRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08');
}
