/** The human report on stdout and the same content as JSON. */
import type { Corpus } from "./corpus.ts";
import type { Metric, SectionResult } from "./context.ts";
import type { Machine } from "./machine.ts";
import { MB } from "./stats.ts";

export interface Report {
  generatedAt: string;
  command: string;
  durationS: number;
  machine: Machine & { loadavgAtEnd: number[] };
  corpus: Omit<Corpus, "parts"> & { parts: Corpus["parts"] };
  options: Record<string, unknown>;
  sections: Record<string, { title: string } & SectionResult>;
  /** Every metric that has a target, flattened. */
  targets: { id: string; value: number | null; unit: string; target: string; status: string }[];
  caveats: string[];
}

function fmtValue(m: Metric): string {
  if (m.value === null) return "—";
  return `${m.value} ${m.unit}`;
}

function fmtTarget(m: Metric): string {
  return m.target ? `${m.target.op} ${m.target.value} ${m.unit}` : "";
}

const MARK: Record<string, string> = { pass: "ok", miss: "MISS", "n/a": "n/a", info: "" };

export function render(r: Report): string {
  const out: string[] = [];
  const m = r.machine;
  out.push("Terminus benchmarks");
  out.push("===================");
  out.push(`when:    ${r.generatedAt} (${r.durationS.toFixed(0)} s)`);
  out.push(`command: ${r.command}`);
  out.push(
    `machine: nproc ${m.nproc}${m.cpu ? `, ${m.cpu}` : ""}${
      m.memTotalMiB ? `, ${m.memTotalMiB} MiB RAM` : ""
    }, ${m.os}, kernel ${m.kernel}`,
  );
  out.push(`runtime: ${m.deno}`);
  out.push(
    `load:    ${m.loadavgAtStart.join(" ")} at start, ${
      m.loadavgAtEnd.join(" ")
    } at end (1/5/15 min)`,
  );
  out.push(
    `code:    ${m.commit ?? "?"}${
      m.dirty.length ? ` + uncommitted changes (${m.dirty.length} path(s) in core/, commands/)` : ""
    }`,
  );
  const c = r.corpus;
  out.push(
    `corpus:  ${
      (c.bytes / MB).toFixed(1)
    } MB in ${c.files} files (${c.sidecars} sidecars), ${c.folders} project folders, ${c.copies} copies of ${c.sourceFiles} genuine transcripts (${
      (c.sourceBytes / MB).toFixed(1)
    } MB), each copy under project roots of its own (${c.cwds} distinct cwds); ${
      c.built === "now" ? `built in ${(c.buildMs / 1000).toFixed(1)} s` : "cached"
    }`,
  );
  out.push(`units:   MB = 10^6 bytes, MiB = 2^20 bytes`);
  for (const cv of r.caveats) out.push(`note:    ${cv}`);
  for (const [name, s] of Object.entries(r.sections)) {
    out.push("");
    out.push(`## ${s.title} [${name}]`);
    const rows = s.metrics.map((mt) => [mt.label, fmtValue(mt), fmtTarget(mt), MARK[mt.status]]);
    const w = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
    s.metrics.forEach((mt, k) => {
      const row = rows[k];
      const target = row[2] ? `target ${row[2].padEnd(w[2])}` : "".padEnd(w[2] ? w[2] + 7 : 0);
      out.push(
        `  ${row[0].padEnd(w[0])}  ${row[1].padStart(w[1])}  ${target}  ${row[3]}`.trimEnd(),
      );
      if (mt.detail) out.push(`    ${mt.detail}`);
    });
    for (const n of s.notes) out.push(`  - ${n}`);
  }
  if (r.targets.length) {
    out.push("");
    out.push("## Targets");
    for (const t of r.targets) {
      out.push(
        `  ${MARK[t.status].padEnd(4)}  ${t.id}: ${
          t.value === null ? "—" : t.value
        } ${t.unit} (target ${t.target})`,
      );
    }
  }
  return out.join("\n") + "\n";
}
