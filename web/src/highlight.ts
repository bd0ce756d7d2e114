/** Syntax highlighting for code blocks and diffs: the one shared with the terminal (highlight.js, read back as pieces). */
export { highlight, highlightLines, type CodeToken, type Highlighted } from '../../src/project/code-highlight.js';
