/**
 * Code highlighted by highlight.js (its core, with the languages models and projects use
 * most), read back as pieces of text and class: never HTML. The page draws the pieces as
 * elements; the terminal paints them line by line. Shared by both, so a file looks the same
 * in the chat's code blocks, the page's diffs and the terminal's.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, css, diff, go, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });

/** A highlighted piece: text, or a span of a class (`hljs-keyword`, ...) holding pieces. */
export type Highlighted = string | { className: string; children: Highlighted[] };

/** A run of one line's text in one token class (`hljs-string`, or the innermost of nested ones); undefined: plain text. */
export interface CodeToken {
  text: string;
  className: string | undefined;
}

/** The code as highlighted pieces, or null when the language is not one registered here (shown plain). */
export function highlight(code: string, language: string | undefined): Highlighted[] | null {
  const lang = language?.trim().split(/\s+/)[0]?.toLowerCase();
  if (lang === undefined || lang === '' || hljs.getLanguage(lang) === undefined) return null;
  return readBack(hljs.highlight(code, { language: lang, ignoreIllegals: true }).value);
}

/**
 * The code's lines, each as its tokens (a string or comment that spans lines is cut at each
 * line's end), or null when the language is not registered here.
 */
export function highlightLines(code: string, language: string | undefined): CodeToken[][] | null {
  const pieces = highlight(code, language);
  if (pieces === null) return null;
  const lines: CodeToken[][] = [[]];
  const walk = (items: Highlighted[], className: string | undefined) => {
    for (const item of items) {
      if (typeof item !== 'string') {
        walk(item.children, item.className);
        continue;
      }
      item.split('\n').forEach((text, i) => {
        if (i > 0) lines.push([]);
        if (text !== '') (lines[lines.length - 1] as CodeToken[]).push({ text, className });
      });
    }
  };
  walk(pieces, undefined);
  return lines;
}

/** highlight.js's HTML (escaped text and `<span class="...">`, nothing else) as pieces. */
function readBack(html: string): Highlighted[] {
  const root: Highlighted[] = [];
  const stack: Highlighted[][] = [root];
  for (const part of html.split(/(<span class="[\w\- ]*">|<\/span>)/)) {
    const top = stack[stack.length - 1] as Highlighted[];
    if (part === '') continue;
    const open = /^<span class="([\w\- ]*)">$/.exec(part);
    if (open !== null) {
      const span = { className: open[1] as string, children: [] as Highlighted[] };
      top.push(span);
      stack.push(span.children);
    } else if (part === '</span>') {
      if (stack.length > 1) stack.pop();
    } else top.push(unescape(part));
  }
  return root;
}

function unescape(text: string): string {
  return text.replace(/&(lt|gt|quot|#x27|#39|amp);/g, (_, ref: string) =>
    ref === 'lt' ? '<' : ref === 'gt' ? '>' : ref === 'quot' ? '"' : ref === 'amp' ? '&' : "'",
  );
}
