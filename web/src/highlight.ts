/**
 * Syntax highlighting for code blocks: highlight.js's core with the languages models write
 * most, its output read back as spans of text and class (never put in the page as HTML).
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

/** The code as highlighted pieces, or null when the language is not one registered here (shown plain). */
export function highlight(code: string, language: string | undefined): Highlighted[] | null {
  const lang = language?.trim().split(/\s+/)[0]?.toLowerCase();
  if (lang === undefined || lang === '' || hljs.getLanguage(lang) === undefined) return null;
  return readBack(hljs.highlight(code, { language: lang, ignoreIllegals: true }).value);
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
