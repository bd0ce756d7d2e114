/**
 * The globs of list_files and search_files ('*.ts', '*.{js,json}', and '**' for any
 * folders), compiled to regular expressions.
 */

/** Whether a project-relative path matches `glob`, tried against the path from the root and from `folder`. */
export function globFilter(glob: string, folder: string): (path: string) => boolean {
  const pattern = glob.replace(/^\.\//, '');
  const regex = new RegExp(`^${globSource(pattern)}$`);
  if (!pattern.includes('/')) return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1));
  const prefix = folder === '.' ? '' : `${folder}/`;
  return (path) => regex.test(path) || (prefix !== '' && path.startsWith(prefix) && regex.test(path.slice(prefix.length)));
}

/** A glob as a regular expression: '**' any folders, '*' and '?' within a name, '[...]' and '{a,b}'. */
function globSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? '';
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[' && glob.indexOf(']', i + 2) !== -1) {
      const end = glob.indexOf(']', i + 2);
      const body = glob.slice(i + 1, end);
      out += `[${body.startsWith('!') ? `^${escapeClass(body.slice(1))}` : escapeClass(body)}]`;
      i = end;
    } else if (c === '{' && closingBrace(glob, i) !== -1) {
      const end = closingBrace(glob, i);
      out += `(?:${splitTopLevel(glob.slice(i + 1, end))
        .map(globSource)
        .join('|')})`;
      i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

function escapeClass(body: string): string {
  return body.replace(/[\\\]^]/g, '\\$&');
}

function closingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '{') depth++;
    else if (body[i] === '}') depth--;
    else if (body[i] === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}
