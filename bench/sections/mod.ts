/**
 * The benchmark sections, in the order a full run prints them. A new section is a module here
 * exporting `section: Section`, added to this list; `deno task bench --only <name>` runs it
 * alone, preparing whatever store it asks for.
 */
import type { Section } from "../lib/context.ts";
import { section as floor } from "./floor.ts";
import { section as backfill } from "./backfill.ts";
import { section as archive } from "./archive.ts";
import { section as compression } from "./compression.ts";
import { section as storage } from "./storage.ts";
import { section as noop } from "./noop.ts";
import { section as rss } from "./rss.ts";
import { section as search } from "./search.ts";
import { section as browse } from "./browse.ts";
import { section as maintenance } from "./maintenance.ts";
import { section as hooks } from "./hooks.ts";
import { section as recall } from "./recall.ts";
import { section as real } from "./real.ts";
import { section as sessions } from "./sessions.ts";
import { section as quality } from "./quality.ts";
import { section as scale } from "./scale.ts";
import { section as deadline } from "./deadline.ts";

export const SECTIONS: Section[] = [
  floor,
  backfill,
  real,
  archive,
  compression,
  storage,
  noop,
  rss,
  search,
  quality,
  browse,
  maintenance,
  hooks,
  recall,
  sessions,
  scale,
  deadline,
];
