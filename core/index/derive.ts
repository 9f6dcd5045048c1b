/**
 * From one archived record to the rows derived from it: the turn, its search text, its
 * structured matches (entities) and paths, and a compaction boundary. Pure: no SQL here.
 */
import type { DerivedRows } from "../store/archive.ts";
import {
  firstToolName,
  hasToolResult,
  isCompactBoundary,
  isTyped,
  messageText,
  type Rec,
  slashCommand,
  str,
} from "../transcript/records.ts";
import { ftsBody, textParts } from "./fts.ts";
import { INJECTION_CHARS_CAP, QUOTE_FOLD_CHARS } from "../constants.ts";
import { ACT, extractEntities } from "./entities.ts";

export interface LineAt {
  rec: Rec;
  streamOffset: number;
  byteLen: number;
  turnSeq: number;
  /** The session is a subagent's sidecar. */
  sidecar: boolean;
}

export function deriveTurn(l: LineAt): DerivedRows {
  const rec = l.rec;
  const entities = extractEntities(rec);
  const parts = textParts(rec);
  const rows: DerivedRows = {
    turn: {
      turnSeq: l.turnSeq,
      uuid: str(rec.uuid),
      parentUuid: str(rec.parentUuid),
      recordType: rec.type as string,
      toolName: firstToolName(rec),
      ts: str(rec.timestamp),
      streamOffset: l.streamOffset,
      byteLen: l.byteLen,
      isTyped: !l.sidecar && isTyped(rec),
      isSidechain: l.sidecar || rec.isSidechain === true,
      isToolResult: hasToolResult(rec),
    },
    body: ftsBody(rec, parts),
    entities,
    paths: entities.filter((e) => e.kind === "path").map((e) => e.value),
  };
  const t = rows.turn;
  if (t.isToolResult || (t.recordType !== "user" && t.recordType !== "assistant")) {
    // never handed over on a prompt: read last, after every turn that can be
    for (const e of entities) e.act = ACT.unquotable;
  }
  if (
    (t.recordType === "user" || t.recordType === "assistant") && !t.isToolResult &&
    rec.isCompactSummary !== true
  ) {
    // fold only as much as a quote can use; a slash command is quoted as it was typed
    const text = (slashCommand(rec) ?? parts.join(" ")).slice(0, QUOTE_FOLD_CHARS).replace(
      /\s+/g,
      " ",
    ).trim();
    if (text !== "") {
      rows.quote = text.length <= INJECTION_CHARS_CAP
        ? text
        : [...text.slice(0, 2 * INJECTION_CHARS_CAP)].slice(0, INJECTION_CHARS_CAP).join("");
      rows.isReply = t.recordType === "assistant" && messageText(rec) !== null;
    }
  }
  if (isCompactBoundary(rec)) {
    const meta = rec.compactMetadata;
    let preserved: string | null = null;
    if (meta && typeof meta === "object" && !Array.isArray(meta)) {
      const pm = (meta as Rec).preservedMessages;
      if (pm && typeof pm === "object" && !Array.isArray(pm) && Array.isArray((pm as Rec).uuids)) {
        preserved = JSON.stringify((pm as Rec).uuids);
      }
    }
    rows.compaction = { preserved };
  }
  return rows;
}
