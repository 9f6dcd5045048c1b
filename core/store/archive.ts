/**
 * The archive's write side, split by concern; this module re-exports them so callers that
 * import from here keep working.
 */
export * from "./blocks.ts";
export * from "./derived.ts";
export * from "./runs.ts";
export * from "./lineage.ts";
export * from "./observations_sql.ts";
