import type { Db } from "./db.ts";

/**
 * Rolls back the open transaction, if one is still open. SQLite ends a transaction itself
 * on some errors (a full disk among them); a plain ROLLBACK then throws "cannot rollback -
 * no transaction is active", and that would replace the error that says what went wrong.
 */
export function rollback(db: Db): void {
  if (!db.isTransaction) return;
  try {
    db.exec("ROLLBACK");
  } catch { /* the first error is the one worth reporting */ }
}
