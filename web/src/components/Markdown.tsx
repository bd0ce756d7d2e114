import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { highlight, type Highlighted } from '../highlight.js';
import { decodeEntities, linkHost, markdownTokens, safeHref, type Token, type Tokens } from '../markdown.js';
import { CopyButton } from './CopyButton.js';

/**
 * Model or user text drawn as markdown: headings, lists, tables, links, code. Each token
 * becomes an element here; HTML written in the text shows as text, and a link opens only
 * if it is http(s) or mailto, in a new tab that cannot reach back to this one, its host shown
 * after a text that says something else.
 */
export function Markdown({ text, testId = 'message-text' }: { text: string; testId?: string }) {
  const tokens = useMemo(() => markdownTokens(text), [text]);
  return (
    <div class="markdown" data-testid={testId}>
      {blocks(tokens)}
    </div>
  );
}

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((token, i) => block(token as Tokens.Generic, i));
}

function block(token: Tokens.Generic, key: number): ComponentChildren {
  switch (token.type) {
    case 'space':
    case 'def':
      return null;
    case 'heading': {
      const t = token as Tokens.Heading;
      const Tag = `h${Math.min(6, t.depth + 1)}` as 'h2';
      return (
        <Tag key={key} class={`md-h md-h${t.depth}`}>
          {inline(t.tokens)}
        </Tag>
      );
    }
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens)}</p>;
    case 'text':
      // A tight list item's text: inline tokens of its own.
      return <span key={key}>{token.tokens === undefined ? decodeEntities(token.text as string) : inline(token.tokens)}</span>;
    case 'blockquote':
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens)}</blockquote>;
    case 'list': {
      const t = token as Tokens.List;
      const items = t.items.map((item, i) => (
        <li key={i} class={item.task ? 'task' : undefined}>
          {blocks(item.tokens)}
        </li>
      ));
      return t.ordered ? (
        <ol key={key} start={t.start === '' || t.start === 1 ? undefined : t.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'checkbox':
      return (
        <span key={key} class="md-check" role="img" aria-label={token.checked === true ? 'done' : 'not done'}>
          {token.checked === true ? '☑ ' : '☐ '}
        </span>
      );
    case 'code': {
      const t = token as Tokens.Code;
      return <CodeBlock key={key} code={t.text.replace(/\n$/, '')} lang={t.lang} />;
    }
    case 'table': {
      const t = token as Tokens.Table;
      const align = (a: Tokens.TableCell['align']) => (a === null ? undefined : { textAlign: a });
      return (
        <div key={key} class="md-table" tabIndex={0} role="region" aria-label="Table">
          <table>
            <thead>
              <tr>
                {t.header.map((cell, i) => (
                  <th key={i} style={align(cell.align)}>
                    {inline(cell.tokens)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {t.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, i) => (
                    <td key={i} style={align(cell.align)}>
                      {inline(cell.tokens)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'hr':
      return <hr key={key} />;
    case 'html':
      // HTML in a message is shown as what it is: text.
      return (
        <p key={key} class="md-raw">
          {token.text as string}
        </p>
      );
    default:
      return <p key={key}>{typeof token.raw === 'string' ? token.raw : ''}</p>;
  }
}

function inline(tokens: Token[] | undefined): ComponentChildren[] {
  return (tokens ?? []).map((token, i) => span(token as Tokens.Generic, i));
}

function span(token: Tokens.Generic, key: number): ComponentChildren {
  switch (token.type) {
    case 'text':
      return token.tokens !== undefined ? <span key={key}>{inline(token.tokens)}</span> : decodeEntities(token.text as string);
    case 'escape':
      return token.text as string;
    case 'strong':
      return <strong key={key}>{inline(token.tokens)}</strong>;
    case 'em':
      return <em key={key}>{inline(token.tokens)}</em>;
    case 'del':
      return <del key={key}>{inline(token.tokens)}</del>;
    case 'codespan':
      return <code key={key}>{token.text as string}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const t = token as Tokens.Link;
      const href = safeHref(t.href);
      const label = inline(t.tokens);
      if (href === null) {
        return (
          <span key={key} class="md-link-off" title={`Not a link that opens here: ${t.href}`}>
            {label}
          </span>
        );
      }
      // Where it goes, not what it says: its host after a text that says something else, its whole address on hover.
      const host = linkHost(decodeEntities(t.text), href);
      return (
        <a key={key} href={href} target="_blank" rel="noopener noreferrer" title={href}>
          {label}
          {host !== null && <span class="md-link-host"> ({host})</span>}
        </a>
      );
    }
    case 'image': {
      // Images from elsewhere are not loaded (the page's policy refuses them): a link to it instead.
      const t = token as Tokens.Image;
      const href = safeHref(t.href);
      const label = `🖼 ${t.text === '' ? 'image' : t.text}`;
      return href === null ? (
        <span key={key}>{label}</span>
      ) : (
        <a key={key} href={href} target="_blank" rel="noopener noreferrer">
          {label}
        </a>
      );
    }
    case 'html':
      return token.text as string;
    case 'checkbox':
      return block(token, key);
    default:
      return typeof token.raw === 'string' ? token.raw : '';
  }
}

/** A fenced code block: highlighted when its language is known, with its language and a copy button. */
export function CodeBlock({ code, lang }: { code: string; lang?: string | undefined }) {
  const pieces = useMemo(() => highlight(code, lang), [code, lang]);
  const label = lang?.trim().split(/\s+/)[0] ?? '';
  return (
    <div class="code-block" data-testid="code-block" data-lang={label}>
      <div class="code-head">
        <span class="code-lang">{label === '' ? 'text' : label}</span>
        <CopyButton text={code} what="the code" testId="copy-code" />
      </div>
      <pre tabIndex={0}>
        <code class="hljs">{pieces === null ? code : pieces.map(piece)}</code>
      </pre>
    </div>
  );
}

function piece(p: Highlighted, key: number): ComponentChildren {
  return typeof p === 'string' ? (
    p
  ) : (
    <span key={key} class={p.className}>
      {p.children.map(piece)}
    </span>
  );
}
