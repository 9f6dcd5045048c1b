/**
 * `deno task bench [--corpus-mb N] [--only name[,name]] [...]`: builds (once) a synthetic
 * corpus from the genuine transcripts, runs the selected sections against the CLI as a
 * process, prints a report and writes it as JSON to bench/out/latest.json.
 */
import { parseArgs } from "node:util";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchOptions, createContext, type SectionResult } from "./lib/context.ts";
import { prepareCorpus } from "./lib/corpus.ts";
import { loadavg, machine } from "./lib/machine.ts";
import { hasGnuTime, runTimed } from "./lib/proc.ts";
import { cliArgs } from "./lib/terminus.ts";
import { render, type Report } from "./lib/report.ts";
import { MB } from "./lib/stats.ts";
import { SECTIONS } from "./sections/mod.ts";

const HELP = `deno task bench [options]

  --corpus-mb N       synthetic corpus size in MB (default 200; built once, cached in bench/out)
  --only a,b          run only these sections (${SECTIONS.map((s) => s.name).join(", ")})
  --floor-runs N      runs of the empty-module floor (default 25)
  --backfill-runs N   fresh-store backfills over the full corpus (default 3)
  --noop-runs N       no-op passes (default 25)
  --half-runs N       backfills over the half corpus for the RSS scaling (default 1)
  --source DIR        genuine transcripts to copy (default /work/shared/corpus, or
                      TERMINUS_BENCH_CORPUS)
  --rebuild-corpus    rebuild the corpus even when a cached one matches
  --real DIR          real transcripts (a folder holding projects/) for the recall section
                      (default: the shared bench corpus, unpacked once into bench/out/real)
  --real-other DIR    real transcripts of other projects for the quality section (default:
                      the shared other-projects tarball, unpacked once into bench/out/real-other)
  --out FILE          JSON report (default bench/out/latest.json)
`;

function positiveInt(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`--${name} wants a positive integer, not ${v}`);
  }
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "corpus-mb": { type: "string" },
      only: { type: "string", multiple: true },
      "floor-runs": { type: "string" },
      "backfill-runs": { type: "string" },
      "noop-runs": { type: "string" },
      "half-runs": { type: "string" },
      source: { type: "string" },
      "rebuild-corpus": { type: "boolean" },
      real: { type: "string" },
      "real-other": { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const opts: BenchOptions = {
    corpusMb: positiveInt(values["corpus-mb"], "corpus-mb", 200),
    floorRuns: positiveInt(values["floor-runs"], "floor-runs", 25),
    backfillRuns: positiveInt(values["backfill-runs"], "backfill-runs", 3),
    noopRuns: positiveInt(values["noop-runs"], "noop-runs", 25),
    halfRuns: positiveInt(values["half-runs"], "half-runs", 1),
    rebuildCorpus: values["rebuild-corpus"] === true,
    real: values.real ? resolve(values.real) : undefined,
    realOther: values["real-other"] ? resolve(values["real-other"]) : undefined,
  };
  const wanted = (values.only ?? []).flatMap((s) => s.split(",")).map((s) => s.trim()).filter(
    Boolean,
  );
  for (const w of wanted) {
    if (!SECTIONS.some((s) => s.name === w)) {
      throw new Error(`unknown section '${w}' (${SECTIONS.map((s) => s.name).join(", ")})`);
    }
  }
  const selected = wanted.length
    ? SECTIONS.filter((s) => wanted.includes(s.name))
    : SECTIONS.filter((s) => !s.optIn);

  const t0 = performance.now();
  const benchDir = dirname(fileURLToPath(import.meta.url));
  const repo = resolve(benchDir, "..");
  const outDir = join(benchDir, "out");
  Deno.mkdirSync(outDir, { recursive: true });
  const source = resolve(
    values.source ?? Deno.env.get("TERMINUS_BENCH_CORPUS") ?? "/work/shared/corpus",
  );
  const log = (m: string) => console.error(`[bench] ${m}`);

  const mach = await machine(repo);
  log(`corpus: ${opts.corpusMb} MB from ${source}`);
  const corpus = prepareCorpus(source, outDir, opts.corpusMb, opts.rebuildCorpus);
  log(
    `corpus ${corpus.built === "now" ? "built" : "reused"}: ${
      (corpus.bytes / MB).toFixed(1)
    } MB, ${corpus.files} files at ${corpus.dir}`,
  );
  const workDir = join(outDir, `work-${opts.corpusMb}mb`);
  Deno.mkdirSync(workDir, { recursive: true });
  const gnuTime = hasGnuTime();
  const ctx = createContext({ repo, outDir, workDir, corpus, opts, gnuTime });

  // Warm the module cache so no section pays for the first compile of mod.ts's graph.
  await runTimed(Deno.execPath(), cliArgs(repo, ["--help"]), { cwd: repo });

  const sections: Report["sections"] = {};
  for (const s of selected) {
    log(`section ${s.name}`);
    const res: SectionResult = await s.run(ctx);
    sections[s.name] = { title: s.title, ...res };
  }

  const loadEnd = await loadavg();
  const caveats = [
    `Measured while other work may share the machine's ${mach.nproc} cores (load average ${
      mach.loadavgAtStart.join("/")
    } at start, ${
      loadEnd.join("/")
    } at the end, the bench's own load included): figures can be noisy; every figure is a median.`,
  ];
  if (!gnuTime) caveats.push("/usr/bin/time is missing: no peak RSS figures.");
  if (corpus.sharedCwds.length) {
    caveats.push(
      `${corpus.sharedCwds.length} cwd(s) of the source sit under no known project root and are the same in every copy (${
        corpus.sharedCwds.slice(0, 3).join(", ")
      }): their projects hold ${corpus.copies} copies of every turn; add their roots to ROOTS in bench/lib/corpus.ts.`,
    );
  }
  const targets = Object.values(sections).flatMap((s) =>
    s.metrics.filter((m) => m.target).map((m) => ({
      id: m.id,
      value: m.value,
      unit: m.unit,
      target: `${m.target!.op} ${m.target!.value}`,
      status: m.status,
    }))
  );
  const report: Report = {
    generatedAt: new Date().toISOString(),
    command: ["deno task bench", ...Deno.args].join(" "),
    durationS: (performance.now() - t0) / 1000,
    machine: { ...mach, loadavgAtEnd: loadEnd },
    corpus,
    options: { ...opts, sections: selected.map((s) => s.name), gnuTime, source },
    sections,
    targets,
    caveats,
  };
  const outFile = values.out ? resolve(values.out) : join(outDir, "latest.json");
  Deno.writeTextFileSync(outFile, JSON.stringify(report, null, 2) + "\n");
  console.log(render(report));
  console.log(`JSON: ${outFile}`);
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (e) {
    console.error(`bench: ${(e as Error).stack ?? e}`);
    Deno.exit(1);
  }
}
