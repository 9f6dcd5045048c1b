/**
 * A scripted stand-in for the Messages API on 127.0.0.1, so the real Claude Code CLI runs
 * whole sessions offline. Each conversation is picked by a marker word in its first prompt;
 * the step is the number of assistant messages already in the request.
 */

export type Step =
  | { text: string }
  | { tool: string; input: Record<string, unknown> };

export type Script = (ctx: { step: number; messages: Message[] }) => Step;

export interface Message {
  role: string;
  content: string | { type: string; text?: string; [k: string]: unknown }[];
}

export interface Request {
  path: string;
  body: Record<string, unknown>;
}

export function textOf(m: Message): string {
  if (typeof m.content === "string") return m.content;
  return m.content.filter((b) => b.type === "text").map((b) => b.text ?? "").join("\n");
}

/** User text without Claude Code's <system-reminder> blocks. */
export function promptText(m: Message): string {
  return textOf(m).replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim();
}

function sse(model: string, step: Step, id: number): string {
  const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  let out = ev("message_start", {
    type: "message_start",
    message: {
      id: `msg_${id}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  if ("text" in step) {
    out += ev("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    out += ev("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: step.text },
    });
  } else {
    out += ev("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: `toolu_${id}`, name: step.tool, input: {} },
    });
    out += ev("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(step.input) },
    });
  }
  out += ev("content_block_stop", { type: "content_block_stop", index: 0 });
  out += ev("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "text" in step ? "end_turn" : "tool_use", stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  out += ev("message_stop", { type: "message_stop" });
  return out;
}

export interface ModelServer {
  url: string;
  requests: Request[];
  close(): Promise<void>;
}

const MAX_REQUESTS = 500;

/** Starts the server; `scripts` maps a marker word in the first prompt to a conversation. */
export function startModel(
  scripts: Record<string, Script>,
  summary = "Summary of the session so far.",
): ModelServer {
  const requests: Request[] = [];
  let n = 0;
  const ac = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: () => {},
  }, async (req) => {
    const url = new URL(req.url);
    const body = req.method === "POST" ? await req.json().catch(() => ({})) : {};
    requests.push({ path: url.pathname, body });
    if (requests.length > MAX_REQUESTS) return new Response("too many requests", { status: 500 });
    if (url.pathname.endsWith("/count_tokens")) return Response.json({ input_tokens: 10 });
    if (!url.pathname.endsWith("/v1/messages")) return Response.json({});
    const messages = (body.messages ?? []) as Message[];
    const model = String(body.model ?? "claude");
    const last = messages[messages.length - 1];
    let step: Step = { text: "ok" };
    const lastText = last ? promptText(last) : "";
    if (
      /summary of the conversation|summarize|summary/i.test(lastText) &&
      /compact|summary/i.test(lastText)
    ) {
      step = { text: `<summary>${summary}</summary>` };
    } else {
      const tools = Array.isArray(body.tools) && (body.tools as unknown[]).length > 0;
      // The newest user prompt carrying a marker picks the script; the step counts the
      // assistant messages after it (a resumed session carries older prompts too).
      let at = -1;
      let key: string | undefined;
      for (let i = messages.length - 1; i >= 0 && key === undefined; i--) {
        if (messages[i].role !== "user") continue;
        const t = promptText(messages[i]);
        key = Object.keys(scripts).find((k) => t.includes(k));
        if (key) at = i;
      }
      if (key && tools) {
        const stepNo = messages.slice(at + 1).filter((m) => m.role === "assistant").length;
        step = scripts[key]({ step: stepNo, messages });
      }
    }
    const text = sse(model, step, ++n);
    if (body.stream === false) {
      return Response.json({
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model,
        content: "text" in step
          ? [{ type: "text", text: step.text }]
          : [{ type: "tool_use", id: `toolu_${n}`, name: step.tool, input: step.input }],
        stop_reason: "text" in step ? "end_turn" : "tool_use",
        usage: { input_tokens: 10, output_tokens: 5 },
      });
    }
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}
