/**
 * `deno lint` plugin holding the house's size rules on product code (core/, commands/, hooks/,
 * mcp/, mod.ts): a function longer than FUNCTION_LINES or a file longer than FILE_LINES is a
 * room doing several jobs (issue #49). Tests and the bench are not held to them. And one rule of
 * start-up cost: no Unicode property class (`\p{L}`) in a regex literal evaluated on import.
 */
const FUNCTION_LINES = 120;
const FILE_LINES = 650;
const PRODUCT = /(^|\/)(core|commands|hooks|mcp)\/|(^|\/)mod\.ts$/;

function isProduct(filename: string): boolean {
  const rel = filename.startsWith(Deno.cwd()) ? filename.slice(Deno.cwd().length + 1) : filename;
  return PRODUCT.test(rel) && !/(^|\/)(tests|bench|scripts)\//.test(rel);
}

function linesOf(text: string, range: [number, number]): number {
  let n = 1;
  for (let i = range[0]; i < range[1]; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

const plugin: Deno.lint.Plugin = {
  name: "house",
  rules: {
    "function-size": {
      create(context) {
        if (!isProduct(context.filename)) return {};
        const check = (
          node:
            | Deno.lint.FunctionDeclaration
            | Deno.lint.FunctionExpression
            | Deno.lint.ArrowFunctionExpression,
        ) => {
          const n = linesOf(context.sourceCode.text, node.range);
          if (n > FUNCTION_LINES) {
            context.report({
              node,
              message: `a function of ${n} lines (at most ${FUNCTION_LINES})`,
            });
          }
        };
        return {
          FunctionDeclaration: check,
          FunctionExpression: check,
          ArrowFunctionExpression: check,
        };
      },
    },
    // V8 builds a property class when the literal is evaluated (0.1-1 ms each in a fresh
    // process): at a module's top it charges every process importing it (core/lazy_regexp.ts)
    "unicode-class-at-load": {
      create(context) {
        if (!isProduct(context.filename)) return {};
        return {
          Literal(node) {
            const re = (node as { regex?: { pattern: string } }).regex;
            if (!re || !/\\[pP]\{/.test(re.pattern)) return;
            const inFunction = context.sourceCode.getAncestors(node).some((a) =>
              a.type === "FunctionDeclaration" || a.type === "FunctionExpression" ||
              a.type === "ArrowFunctionExpression"
            );
            if (!inFunction) {
              context.report({
                node,
                message:
                  "a Unicode property class built on import; build it at first use (lazyRegExp)",
              });
            }
          },
        };
      },
    },
    "file-size": {
      create(context) {
        if (!isProduct(context.filename)) return {};
        return {
          Program(node) {
            const n = context.sourceCode.text.split("\n").length - 1;
            if (n > FILE_LINES) {
              context.report({ node, message: `a file of ${n} lines (at most ${FILE_LINES})` });
            }
          },
        };
      },
    },
  },
};

export default plugin;
