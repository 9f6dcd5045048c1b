/**
 * `terminus mcp`: the MCP stdio server and its three read-only recall tools. Arguments are
 * validated by the tools themselves so every answer keeps the documented shape; only an
 * unknown tool is a JSON-RPC error. `resultType` and the serverInfo `_meta` go on every
 * result this server sends.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../core/constants.ts";
import { loadConfig } from "../core/config.ts";
import { dataDir, type Env, storePath } from "../core/paths.ts";
import { canonicalJson } from "../core/output.ts";
import { inputSchema, TOOL_DEFS, type ToolDef, type ToolEnv } from "../core/recall/tools.ts";
import { LineTransport } from "./stdio.ts";
import type { Streams } from "../core/streams.ts";

export const SERVER_INFO = { name: "terminus", version: VERSION };
const META = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };

const ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** The tool listing, drawn from each tool's one definition (core/recall/tools.ts). */
export const TOOLS = TOOL_DEFS.map((d) => ({
  name: d.name,
  description: d.description,
  inputSchema: inputSchema(d.args),
  annotations: { title: d.title, ...ANNOTATIONS },
}));

const HANDLERS: Record<string, ToolDef["run"]> = Object.fromEntries(
  TOOL_DEFS.map((d) => [d.name, d.run]),
);

function toolEnv(env: Env, cwd: () => string): ToolEnv {
  let dir: string | null;
  try {
    dir = cwd();
  } catch {
    dir = null;
  }
  // Config is read on every call, so an edit takes effect without a restart.
  return { cfg: loadConfig(env), store: storePath(dataDir(env)), cwd: dir };
}

export function createServer(env: Env, cwd: () => string = () => Deno.cwd()): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req: CallToolRequest) => {
    const handler = HANDLERS[req.params.name];
    if (!handler) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${req.params.name}`);
    const a = await handler(() => toolEnv(env, cwd), req.params.arguments ?? {});
    return { content: [{ type: "text" as const, text: canonicalJson(a.doc) }], isError: a.misuse };
  });
  return server;
}

/** Puts `resultType` and the serverInfo `_meta` on every result the server sends. */
export function stampResults(t: Transport): Transport {
  const send = t.send.bind(t);
  t.send = (msg: JSONRPCMessage, opts?: Parameters<Transport["send"]>[1]) => {
    if ("result" in msg && msg.result && typeof msg.result === "object") {
      const r = msg.result as Record<string, unknown>;
      r.resultType ??= "complete";
      r._meta = { ...(r._meta as Record<string, unknown> | undefined), ...META };
    }
    return send(msg, opts);
  };
  return t;
}

/** One line saying what is wrong with a tools/call's tool name, or null when it is a string. */
function nameProblem(params: unknown): string | null {
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    return "tools/call needs params naming a tool";
  }
  const name = (params as { name?: unknown }).name;
  if (name === undefined) return "tools/call names no tool";
  if (typeof name === "string") return null;
  const kind = name === null ? "null" : Array.isArray(name) ? "an array" : `a ${typeof name}`;
  return `tools/call name must be a string, not ${kind}`;
}

/**
 * The SDK rejects a tools/call whose arguments are not an object as a protocol error; the
 * contract makes that a tool result with isError, so such a call is answered here. A call
 * whose name is missing or not a string is answered here too, with one line rather than the
 * SDK's schema dump.
 */
export function answerNonObjectArguments(
  t: Transport,
  env: Env,
  cwd: () => string = () => Deno.cwd(),
): void {
  const inner = t.onmessage;
  t.onmessage = (
    msg: JSONRPCMessage,
    extra?: Parameters<NonNullable<Transport["onmessage"]>>[1],
  ) => {
    const m = msg as {
      method?: string;
      id?: string | number;
      params?: { name?: unknown; arguments?: unknown };
    };
    const problem = m.method === "tools/call" && m.id !== undefined ? nameProblem(m.params) : null;
    if (problem) {
      void t.send({
        jsonrpc: "2.0",
        id: m.id!,
        error: { code: ErrorCode.InvalidParams, message: problem },
      }).catch(() => {});
      return;
    }
    const args = m.params?.arguments;
    const handler = typeof m.params?.name === "string" ? HANDLERS[m.params.name] : undefined;
    if (
      m.method === "tools/call" && m.id !== undefined && handler && args !== undefined &&
      (args === null || typeof args !== "object" || Array.isArray(args))
    ) {
      void handler(() => toolEnv(env, cwd), args).then((a) =>
        t.send({
          jsonrpc: "2.0",
          id: m.id!,
          result: { content: [{ type: "text", text: canonicalJson(a.doc) }], isError: a.misuse },
        })
      );
      return;
    }
    inner?.(msg, extra);
  };
}

/** Serves on stdio (the Context's streams) until Claude Code closes stdin. */
export async function serveStdio(
  env: Env,
  stdio: ReturnType<Streams["stdio"]>,
  cwd: () => string = () => Deno.cwd(),
): Promise<void> {
  const server = createServer(env, cwd);
  const transport = stampResults(new LineTransport(stdio.input, stdio.output));
  const closed = new Promise<void>((resolve) => (server.onclose = () => resolve()));
  await server.connect(transport);
  answerNonObjectArguments(transport, env, cwd);
  // The transport closes when Claude Code closes stdin.
  await closed;
}
