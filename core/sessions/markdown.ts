/**
 * Claude's replies as HTML for the export: they are Markdown, so they are rendered, with
 * markdown-it set so that nothing in the untrusted transcript becomes markup of its own. Raw
 * HTML is escaped (html: false), images are not rendered at all (an <img> would be a load),
 * links stay links only to http(s) and mailto, and control characters are escaped first.
 * Loaded only by the HTML export.
 */
import MarkdownIt from "markdown-it";
import { escapeControls } from "../output.ts";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false }).disable("image");
const SAFE_LINK = /^(https?:|mailto:)/i;
md.validateLink = (url: string) => SAFE_LINK.test(url.trim());

/** One reply's Markdown as an HTML fragment. */
export function markdownHtml(text: string): string {
  return md.render(escapeControls(text));
}
