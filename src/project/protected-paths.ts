/**
 * The names inside a project that are not the project's files: git's data (`.git`) and
 * Golem's workspace (`.golem`), at any depth (a nested repository's `.git` too). A name
 * is compared as the file systems people use would compare it, so that no spelling of it
 * reaches the folder on some disk:
 * - NFKC, then case folding (upper then lower case, so that NTFS's `ı`→`I` and APFS's
 *   folding agree): `.GIT`, `.Git`, fullwidth `．ｇｉｔ`, `.gıt` are `.git`;
 * - code points HFS+ ignores (Unicode's default-ignorable ones, such as U+200C) dropped;
 * - an NTFS stream suffix (`:…`, as in `.git::$INDEX_ALLOCATION`) dropped, then trailing
 *   dots and spaces, which Windows drops (`.git.` and `.git ` are `.git`);
 * - the 8.3 short name Windows gives it (`GIT~1`, `GOLEM~1`, any number after the tilde);
 * - a backslash separates names, as it does on Windows.
 */

/** The names no project action may read, list, search, write or run in. */
export const PROTECTED_NAMES = ['.git', '.golem'] as const;

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** The 8.3 short names Windows gives them: `git~1`, `golem~2`… */
const SHORT_NAMES = { '.git': /^git~\d+$/, '.golem': /^golem~\d+$/ } as const satisfies Record<(typeof PROTECTED_NAMES)[number], RegExp>;

/** A name of a path as a case-insensitive, normalising file system compares it. */
export function foldedName(name: string): string {
  const folded = name.normalize('NFKC').replace(IGNORABLE, '').toUpperCase().toLowerCase().normalize('NFKC');
  const colon = folded.indexOf(':');
  return (colon < 0 ? folded : folded.slice(0, colon)).replace(/[. ]+$/, '');
}

/** The protected name `name` stands for on some file system, or undefined. */
export function protectedName(name: string): string | undefined {
  const folded = foldedName(name);
  return PROTECTED_NAMES.find((p) => folded === p || SHORT_NAMES[p].test(folded));
}

/** The first part of a project-relative path (split at '/' and '\') that is protected, as the protected name; or undefined. */
export function protectedPart(rel: string): string | undefined {
  for (const part of rel.split(/[/\\]/)) {
    const name = protectedName(part);
    if (name !== undefined) return name;
  }
  return undefined;
}

/** A project-relative path folded name by name, to compare with another folded so. */
export function foldedPath(rel: string): string {
  return rel
    .split(/[/\\]/)
    .filter((part) => part !== '' && part !== '.')
    .map(foldedName)
    .join('/');
}
