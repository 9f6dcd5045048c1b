/** Help lines several commands share, worded once. */
import type { HelpLine } from "./types.ts";

export const PROJECT: HelpLine = [
  "--project <path>",
  "the project containing <path>; '*' for every project",
];
export const SINCE: HelpLine = [
  "--since <time>",
  "from this UTC time on (YYYY-MM-DD or ...THH:MM:SS.mmmZ)",
];
export const UNTIL: HelpLine = [
  "--until <time>",
  "up to this UTC time; a bare date means the end of that day",
];
export const JSON_OPTION: HelpLine = ["--json", "write one JSON document on stdout"];
export const RAW: HelpLine = ["--raw", "with redact_recall on, print unfiltered text for this run"];
/** Search's line in the list of commands; the search entry (search.ts) heads its help with it too. */
export const SEARCH_SUMMARY = "find past turns by words, paths, errors, names";
/** Ingest's line in the list of commands; the pass's entry (ingest.ts) heads its help with it. */
export const INGEST_SUMMARY = "archive new transcript bytes (or one file)";
