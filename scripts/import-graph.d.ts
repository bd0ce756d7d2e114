// The types of import-graph.js (plain JavaScript, so ESLint's config can load it; tsx's resolution
// changes under allowJs, so TypeScript reads these instead).
/** The parts, from the bottom up (the list itself is in import-graph.js). */
export declare const PARTS: readonly string[];
export declare const MAX_LINES: number;
export interface ImportEdge {
  from: string;
  to: string;
  fromPart: string;
  toPart: string;
}
export interface GraphReport {
  parts: Record<string, Record<string, number>>;
  upward: ImportEdge[];
  unknown: string[];
  fileCycles: string[][];
  longFiles: { file: string; lines: number }[];
}
export declare function partOf(srcDir: string, file: string): string;
export declare function mayImport(from: string, to: string): boolean;
export declare function resolveSpecifier(file: string, specifier: string, exists: (path: string) => boolean): string | undefined;
export declare function specifiersOf(text: string): string[];
export declare function importGraph(srcDir: string, options?: { extraDirs?: string[] }): GraphReport & { edges: Map<string, Set<string>> };
export declare function cycles(edges: Map<string, Set<string>>): string[][];
export declare function problemsOf(report: GraphReport): string[];
