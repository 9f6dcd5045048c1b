/**
 * Every number the specification names, once, and the knobs several modules (or tests) share.
 * A knob one module tunes lives beside its code with a one-line why; what measured it is in
 * docs/design/performance.md, not here.
 */

export const VERSION = "0.1.0";

/** Formats kept in the store's `meta` table. */
export const ARCHIVE_FORMAT = 1;
export const DERIVED_SCHEMA = 5;
/**
 * How a turn touched an entity, in the order prompt recall reads candidates: the Read, Edit or
 * Write of a path and the Grep of an identifier first, then any other mention, then a git
 * line that only lists it, then a turn that can never be handed over (a tool result).
 */
export const ENTITY_ACT = Object.freeze({ direct: 0, mention: 1, listing: 2, unquotable: 3 });

/** Archive framing. */
export const BLOCK_BYTES = 64 * 1024;
/** How many bytes before a watermark are hashed to notice a rewritten transcript. */
export const REWRITE_CHECK_BYTES = 64 * 1024;
/** A rewritten transcript's new lineage is archived under `<session_key>#<n>`, n from 2. */
export const LINEAGE_MARK = "#";
export const ZSTD_LEVEL = 3;
/** The compressor's window, stated: unstated, every block's context is sized for 2 MiB (performance.md). */
export const ZSTD_WINDOW_LOG = 17;

/** SQLite busy timeouts: the pass may wait a little, readers barely. */
export const BUSY_TIMEOUT_WRITE_MS = 5_000;
export const BUSY_TIMEOUT_READ_MS = 200;

/**
 * The launcher's glibc `MALLOC_MMAP_THRESHOLD_` (unless set): freed windows go back to the
 * kernel, and the compressor's context stays below it (performance.md, "Launcher allocator
 * variables").
 */
export const MALLOC_MMAP_THRESHOLD_BYTES = 2 * 1024 * 1024;
/** The launcher's glibc `MALLOC_TRIM_THRESHOLD_` (unless set): twice the mmap one, as glibc's rule sets it. */
export const MALLOC_TRIM_THRESHOLD_BYTES = 2 * MALLOC_MMAP_THRESHOLD_BYTES;

/** `git rev-parse --show-toplevel` gets this long before the cwd is used instead. */
export const GIT_TIMEOUT_MS = 1_000;

/** A session closes when its last turn is older than this. */
export const CLOSE_AFTER_MS = 6 * 60 * 60 * 1000;
/** Sessions observed per pass; the rest wait. */
export const OBSERVE_PER_PASS = 100;
/** The backfill's worker runs passes until no closed session waits, at most this many. */
export const BACKFILL_MAX_PASSES = 1000;
/** The pass's tail steps (drain, labels) commit this many rows at a time, so a killed pass keeps its progress. */
export const TAIL_STEP_ROWS = 50;
/** FTS5's buffer of pending terms (its `hashsize`): one batch's terms, so a batch writes one segment. */
export const FTS_PENDING_BYTES = 8 * 1024 * 1024;
/** A pass reads a transcript this many bytes at a time, so its memory is bounded whatever the file. */
export const PASS_WINDOW_BYTES = 8 * 1024 * 1024;
/**
 * Once a pass has handed this many bytes of windows to derive, the rest derive on a worker
 * thread (parse, index rows, zstd and BLAKE3) while the main thread writes; a smaller pass is
 * not worth the worker's start.
 */
export const DERIVE_WORKER_MIN_BYTES = 1 * 1024 * 1024;
/**
 * Bytes of windows handed to the derive worker and not yet written, beyond the one being
 * written: the queue that bounds its memory while letting it run ahead of the writes.
 */
export const DERIVE_QUEUE_BYTES = 12 * 1024 * 1024;
/**
 * V8's young generation per thread (MiB per semi-space), full size from the start so a search,
 * a hook or a no-op pass never scavenges (performance.md, "The young generation").
 */
export const SEMI_SPACE_MIB = 16;
/** The backfill's young generation (and the compiled binary's): smaller, for its peak RSS (performance.md). */
export const BACKFILL_SEMI_SPACE_MIB = 4;
/**
 * A line with no newline in this many bytes is oversized: archived as bytes, window by window,
 * and never parsed or held whole.
 */
export const LINE_CAP_BYTES = 64 * 1024 * 1024;
/** Retention acts on at most this many sessions per action per pass. */
export const RETENTION_PER_PASS = 100;

/** Capture mode `lean` replaces tool output and attachments larger than this. */
export const LEAN_THRESHOLD_BYTES = 8_192;

/** Search. */
export const FTS_BODY_MAX_BYTES = 256 * 1024;
export const FTS_EXPANSION_MAX_BYTES = 128 * 1024;
/** The longest string of a tool result's structured copy indexed beside the result's text. */
export const FTS_RESULT_COPY_MAX_CHARS = 512;

/**
 * The longest search word, in UTF-16 units. Three UTF-8 bytes a unit at most keeps its title
 * match well inside SQLite's 50,000-byte LIKE pattern limit, which otherwise answers a long
 * word with "LIKE or GLOB pattern too complex".
 */
export const QUERY_WORD_CHARS_MAX = 10_000;
export const MAX_QUERY_TOKENS = 32;
/** `sessions browse` matches the word being typed as a prefix once it has this many characters. */
export const BROWSE_PREFIX_MIN_CHARS = 3;
export const EXCERPT_CHARS = 240;
export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 50;
export const SEARCH_POOL = 200;
/**
 * Search: matching rows read per MATCH, newest first (rowid order), for BM25 and the pool. A word
 * that matches more is ranked over its newest this many rows (in scope), so a common word costs
 * the same at 3 GB as at 200 MB; chosen by the quality and scale benches (docs/design/search.md).
 */
export const SEARCH_READ_CAP = 1_000;
/**
 * Search: the one-word clauses BM25 scores exactly span fewer FTS5 leaf pages than this together;
 * the longest count as common (search.md, "Common clauses"; performance.md).
 */
export const SEARCH_COMMON_PAGES = 100;
/**
 * Search: a query whose rarest word spans at most this many FTS5 leaf pages is first walked
 * forwards, rowids only, to see whether all its matches fit under SEARCH_READ_CAP; they are then
 * read by id, with no walk backwards (performance.md, "Search's tail").
 */
export const SEARCH_PROBE_PAGES = 16;
/**
 * A pass that added at least this share of the archive's turns (a backfill, a first pass, a
 * long catch-up) merges the search index into one segment when it left more than one.
 */
export const SEARCH_MERGE_SHARE = 0.25;
/**
 * Search: the check of chosen turns for the words (the definitions beside the window) walks
 * FTS5's doclists from the lowest to the highest of them; where two of them lie more than this
 * many sessions apart, the stretch between is skipped, each side walked on its own
 * (performance.md, "Chosen turns read in runs").
 */
export const SEARCH_RUN_GAP_SESSIONS = 8;
/** Search: at most this many walks for one read of chosen turns (each costs FTS5 a seek). */
export const SEARCH_RUNS_MAX = 8;
/**
 * Search: what a turn acting on an identifier the query names gets on top of its relevance
 * (its Write or Edit defining it, a Grep of it, an edit of the file defining it), so the
 * definition ranks above the turns that only mention it. Chosen by the quality bench
 * (docs/design/search.md, "A definition outranks a mention").
 */
export const DEFINITION_BONUS = 10;
/** Search: acting turns read per identifier the query names, and per file defining it. */
export const SEARCH_ACTORS_PER_WORD = 50;
/** Search: files (those the identifier was defined in) whose edits count as acting on it. */
export const SEARCH_DEFINED_FILES = 5;
/**
 * Search's further answers (docs/design/search.md, "Further answers"): rows read per word,
 * newest first, rowids only and counted inside SQLite, to find the sessions holding every word
 * across their turns and, when nothing does, the turns holding any of them. A word with more
 * rows is taken as held by the sessions older than its read, and is not scored.
 */
export const TIER_READ_CAP = 2_000;
/** Search: the sessions holding every word that are scored by BM25 (the best by idf first). */
export const TIER_SESSIONS_SCORED = 20;
/**
 * Search: a word at least this share of the scope's sessions hold tells no session apart, so a
 * session lacking it still counts as holding every word (`why`, `did`, `we` of a question);
 * chosen by the quality bench's questions (docs/design/search.md, "Words half the sessions say").
 */
export const TIER_EXCUSE_SHARE = 0.5;
/**
 * Search: what each held word's idf adds to a turn holding any of the words, beside its BM25
 * (chosen by the quality bench's questions: 0 / 0.5 / 1 / 2, docs/design/search.md).
 */
export const TIER_ANY_HELD_WEIGHT = 1;
/**
 * Search: the turns holding any of the words scored by BM25 and the entity bonus, the best by
 * their words' idf sum (50, 20 and 200 ranked the bench's queries alike; 50 spares the work).
 */
export const TIER_ANY_POOL = 50;
/** Search: a session holding every word across its turns is shown by at most this many. */
export const TIER_SESSION_TURNS = 3;
/**
 * Search: sessions holding every word across their turns join a first answer (turns holding
 * every word) that has fewer hits than this. Chosen by the quality bench.
 */
export const TIER_SESSION_BELOW = 3;
/**
 * Prompt recall: rows read from the index per thing a prompt names (the compacted window's
 * size), direct actions first, then newest.
 */
export const RECALL_POOL_PER_NAME = 50;
/** Prompt recall: stored paths read for one path part (a bare file name, a folder's name). */
export const PATH_NAMES_READ = 200;
/**
 * Prompt recall: an identifier carried by more of the scope's sessions than this share (and
 * more than the floor) is too common to bring a turn alone. Picked by `deno task bench --only
 * recall` (the word sets and the held-out plan replay).
 */
export const COMMON_IDENTIFIER_SHARE = 0.1;
export const COMMON_IDENTIFIER_MIN_SESSIONS = 3;
/**
 * Prompt recall: the names read from one prompt before the rarest are kept. Each costs one
 * bounded count of the sessions holding it; only `max_candidates` (8) of them are looked up.
 */
export const RECALL_NAMES_SEEN = 32;
/**
 * Prompt recall: index rows read to count the sessions that hold one name. A name with more
 * rows than this is counted among its first this many (direct actions first, then newest), so
 * its count can only come out low, and only for a name carried by that many turns.
 */
export const RECALL_SESSION_DF_ROWS = 400;
/** Prompt recall: file names one stem may stand for (`sync_cmd` -> `sync_cmd.py`, `.sh`). */
export const STEM_FILE_NAMES = 2;
/**
 * Prompt recall: everyday words of the field, spelled like identifiers or file names: product,
 * platform, language and format names. Prose is full of them, so none brings a turn on its own
 * however rare it is in the archive (it still adds to a match on something else), and none
 * takes one of the 8 names a prompt looks up while a rarer name waits. Compared without case.
 * Kept short: a name that is common in a project is held back by its session count anyway.
 */
export const EVERYDAY_NAMES: readonly string[] = Object.freeze([
  // code hosts, tools and services
  "GitHub",
  "GitLab",
  "BitBucket",
  "DevOps",
  "DockerHub",
  "PyPI",
  "npm",
  "OpenAI",
  "ChatGPT",
  "ClaudeCode",
  "YouTube",
  "LinkedIn",
  "WhatsApp",
  "PayPal",
  "CloudFlare",
  "CloudFront",
  "CloudWatch",
  "DynamoDB",
  "MongoDB",
  "PostgreSQL",
  "MySQL",
  "SQLite",
  "MariaDB",
  "ElasticSearch",
  "OpenSearch",
  "RabbitMQ",
  "WebAssembly",
  "WebSocket",
  "WebSockets",
  "WebGL",
  "WebRTC",
  "VSCode",
  "IntelliJ",
  "PyCharm",
  "WebStorm",
  "PowerShell",
  "NumPy",
  "SciPy",
  "PyTorch",
  "TensorFlow",
  "FastAPI",
  "GraphQL",
  "OAuth",
  // platforms and languages
  "macOS",
  "iOS",
  "iPadOS",
  "watchOS",
  "tvOS",
  "visionOS",
  "iPhone",
  "iPad",
  "AirPods",
  "TypeScript",
  "JavaScript",
  "CoffeeScript",
  "ActionScript",
  "PHPUnit",
  "ObjC",
  "CMake",
  "LaTeX",
  "Node.js",
  "Next.js",
  "Nuxt.js",
  "Vue.js",
  "React.js",
  "Express.js",
  "Three.js",
  "D3.js",
  "ASP.NET",
  // formats and documents
  "README",
  "JSON",
  "YAML",
  "TOML",
  "GeoJSON",
  "JSONL",
  "NDJSON",
  "OpenAPI",
]);
/**
 * Prompt recall: tied hits whose text is read for the prompt's words, in all. Each is a page
 * read with the store out of the page cache; 10 ranked the held-out replays as 20 did.
 */
export const TIE_TEXT_READS = 10;
/**
 * Prompt recall: a turn that only lists or records what it matched (a `git add`/`commit` line,
 * a pull request's body) is handed over only beside this many of the prompt's names: alone it
 * was a false positive 6 times in 6 on the other projects' held-out replay.
 */
export const LISTING_NAMES_ALONE = 2;
/** Prompt recall: Bash mentions near the top whose text is read to tell such a line. */
export const LISTING_TEXT_READS = 10;
export const ENTITIES_PER_TURN = 48;
export const ENTITY_DEPTH_LIMIT = 8;
export const ERROR_ENTITY_MAX_BYTES = 512;

/** show / recall_context windows. */
export const CONTEXT_MAX = 25;
export const CONTEXT_DEFAULT = 5;
export const GET_MAX_IDS = 25;

/** The MCP server's largest message; one this size or larger is answered with a JSON-RPC error. */
export const MCP_MESSAGE_MAX_BYTES = 10 * 1024 * 1024;

/** Injection (compiled in; only `replay` varies them). */
export const INJECTION_CHARS_CAP = 10_000;
/**
 * How much of a turn's text ingest folds for its quote (turn_text): the quote is the turn's
 * whole folded text when it is shorter than INJECTION_CHARS_CAP and the record is no longer than
 * this in bytes (its text then had no more characters than this).
 */
export const QUOTE_FOLD_CHARS = 4 * INJECTION_CHARS_CAP;
export const BRIEF_CHARS_DEFAULT = 6_000;
export const PROMPT_CHARS_DEFAULT = 4_000;
export const QUOTE_CHARS = 240;
export const HOOK_DEADLINE_MS = 50;
export const HOOK_STDIN_MAX_BYTES = 1024 * 1024;
export const HOOK_STDIN_WAIT_MS = 500;
/** The niceness a hook starts its detached pass at: the lowest priority, behind the lookups. */
export const PASS_NICENESS = 19;
/**
 * A pass a hook starts waits this long before it runs, so it takes no core from the lookup
 * (performance.md, "Hook deadline beside a backfill").
 */
export const HOOK_PASS_WAIT_MS = HOOK_DEADLINE_MS;
/**
 * Where the pass can wait for the hook's process itself (bash and GNU tail), it starts when the
 * hook has exited, or after this long if the hook is still there (performance.md, "The hook's
 * pass waits for the hook to exit").
 */
export const HOOK_EXIT_WAIT_MAX_MS = 10_000;
/**
 * The niceness `terminus backfill`'s worker runs at, so the hooks beside it keep their deadline;
 * install's first backfill runs at normal priority instead (performance.md).
 */
export const BACKFILL_NICENESS = 19;
/** doctor's last_run looks at this many of the latest logged prompts for deadline misses... */
export const DEADLINE_MISS_WINDOW = 100;
/** ...and becomes a note when more than this share of them ran past the deadline. */
export const DEADLINE_MISS_NOTE_SHARE = 0.05;
/** A prompt's hook starts no pass when one was started this recently (SessionStart/End always do). */
export const PASS_DEBOUNCE_MS = 3_000;
/**
 * Hooks that have kept starting passes this long with none finishing mean archiving has
 * stopped: SessionStart tells the person and doctor flags it. A day, so Claude Code's
 * 30-day sweep cannot take much before someone hears.
 */
export const STALL_AFTER_MS = 24 * 60 * 60 * 1000;
/** Progress lines on a terminal are redrawn at most this often (10 a second). */
export const PROGRESS_REDRAW_MS = 100;
/** A pass in flight writes its progress to its run row at most this often (status reads it). */
export const RUN_PROGRESS_MS = 1_000;

/** Snapshots. */
export const SNAPSHOT_INTERVAL_HOURS_DEFAULT = 24;
export const SNAPSHOT_KEEP_DEFAULT = 3;

/** Turn ids: `session_no << 24 | turn_seq`. */
export const TURN_SEQ_BITS = 24;
export const TURN_SEQ_SPAN = 2 ** TURN_SEQ_BITS;

/** File modes for everything Terminus creates in its own folders. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** The most entries one observation list keeps; a cut list is named under `truncated`. */
export const OBSERVATION_LIST_MAX = 100;

/** Ages and intervals in the config are whole days and hours. */
export const DAY_MS = 24 * 60 * 60 * 1000;
export const HOUR_MS = 60 * 60 * 1000;

/** SQLite's lock page holds the byte at this offset; it is never used, so dbstat never lists it. */
export const SQLITE_LOCK_BYTE_OFFSET = 0x40000000;

/** `terminus backfill`'s first time estimate, in 10^6 bytes a second, before a pass has measured one. */
export const BACKFILL_RATE_MB_S = 11;
/** A pass that read less than this says little about the rate (start-up dominates it). */
export const RATE_SAMPLE_MIN_BYTES = 8 * 1_000_000;

/** `terminus data move`: the filesystem types /proc/self/mountinfo names for a network mount. */
export const NETWORK_FS_TYPES = [
  "9p",
  "afs",
  "ceph",
  "cifs",
  "coda",
  "davfs",
  "fuse.ceph",
  "fuse.davfs2",
  "fuse.glusterfs",
  "fuse.rclone",
  "fuse.sshfs",
  "glusterfs",
  "lustre",
  "ncpfs",
  "nfs",
  "nfs4",
  "smb3",
  "smbfs",
  "sshfs",
] as const;

/** Setup: install, uninstall, doctor. */
/** Every `claude` that install, uninstall and doctor run gets this long before it is stopped. */
export const CLAUDE_TIMEOUT_MS = 30_000;
/** Claude Code's own default for cleanupPeriodDays, in days. */
export const CLEANUP_PERIOD_DAYS_DEFAULT = 30;
/** Below this many days, doctor prints the edit that raises cleanupPeriodDays. */
export const CLEANUP_PERIOD_DAYS_FLOOR = 90;
/** The value that edit sets. */
export const CLEANUP_PERIOD_DAYS_SUGGESTED = 3650;
/**
 * The text every Terminus build carries (the compiled binary in its embedded source, the
 * source install's launcher in a comment). install and install.sh accept a regular file at
 * the link path only when it holds this.
 */
export const BUILD_MARKER = "terminus-build-marker:crenshawdev/terminus";

/**
 * Session names, tags and titles (`terminus sessions`). 2: a summary is a title only when its
 * leafUuid is one of the session's records, so a store at 1 reads its titles again.
 */
export const SESSIONS_SCHEMA = 2;
/** A title from the first typed prompt is cut to this many characters. */
export const TITLE_PROMPT_CHARS = 80;
/**
 * The sessions list cuts a title to fit the terminal, but to no fewer columns than this until
 * the other columns have given way (core/sessions/list.ts).
 */
export const LIST_TITLE_MIN = 24;
/**
 * What `terminus sessions` prints without --limit or --all: a page, as gh lists 30; the
 * count of the rest goes to stderr. --json keeps every row.
 */
export const SESSIONS_PAGE = 20;
/**
 * A session's duration is its active time: the gaps between turns summed, each counted up to
 * this. A session resumed after months, or left open over lunch, is not that long.
 */
export const ACTIVE_GAP_CAP_SECONDS = 30 * 60;
/** A name set with `sessions name` may be at most this long. */
export const TITLE_MAX_CHARS = 200;
/** A tag: lowercase letters, digits, `.`, `_`, `-`, at most this long. */
export const TAG_MAX_CHARS = 32;
/** A UUID prefix used as a session reference must be at least this long. */
export const REF_PREFIX_MIN = 6;
/** `sessions browse` left with Esc or Ctrl-C, as fzf exits (128 + SIGINT). */
export const BROWSE_CANCELLED_EXIT = 130 as const;
/**
 * How much of a new transcript a pass reads to find its first turn's time, so new sessions
 * are numbered oldest first. Claude Code writes the first turn within the first few lines.
 */
export const FIRST_TURN_PEEK_BYTES = 64 * 1024;
/** `sessions show` folds a tool result to this many lines unless --full. */
export const SHOW_RESULT_LINES = 8;
/** `sessions show` cuts a tool call's main argument to this many characters. */
export const SHOW_ARG_CHARS = 120;

/** `import-history`: a history.jsonl line longer than this is broken, skipped unread. */
export const HISTORY_LINE_MAX_BYTES = 8 * 1024 * 1024;
/** `import-history` commits this many prompts per transaction. */
export const HISTORY_BATCH_ROWS = 2000;
/** `import-history` names at most this many broken lines; the rest are only counted. */
export const HISTORY_BROKEN_NAMED = 20;
/** The kind imported prompt history carries (`search --kind history_prompt`). */
export const HISTORY_KIND = "history_prompt";

/** A tombstone identifies a deleted session's transcript by a hash of this many leading bytes. */
export const TOMBSTONE_HEAD_BYTES = 4096;
/** `sessions changes`: lines of context around each change in a diff. */
export const CHANGES_CONTEXT_LINES = 3;
/** `sessions show` folds an edit's inline diff to this many lines unless --full. */
export const SHOW_DIFF_LINES = 40;

/**
 * terminus.toml is read only from a regular file of at most this many bytes, and its error is one
 * line of at most CONFIG_ERROR_CHARS characters (faults.md).
 */
export const CONFIG_BYTES_MAX = 1024 * 1024;

/** A doctor finding names at most this many items of a list (roots, missing roots), then a count. */
export const DOCTOR_LIST_MAX = 5;
export const CONFIG_ERROR_CHARS = 240;

/**
 * A pass that fails outright (a full disk refusing even its run row's update) writes why into
 * a file of this many bytes, allocated while there was room, so the write needs no new space;
 * the next pass reports that cause instead of "its process died".
 */
export const FAILURE_RECORD_BYTES = 4096;
/** The largest store a reader on a full disk reads into memory instead (core/store/db.ts). */
export const FULL_DISK_READ_MAX_BYTES = 512 * 1024 * 1024;
