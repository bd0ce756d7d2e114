/** The prompt pipeline (seed 001): transcriptSnapshot, retrieval, instructions, blob resolution, the token planner and the summarizer; `respond`, and the `Session` facade that carries it. */
export { Session, type NewTurn } from './session.js';
export type { SessionSnapshot, TurnsOptions } from './session-snapshot.js';
export type { EffectiveSession, ResolveOptions } from './effective-session.js';
export type { MergeOptions } from './session-merge.js';
export { SessionManager } from './session-manager.js';
export {
  turnsSince,
  type SessionDiff,
  type SessionDiffContext,
  type SessionDiffLayer,
  type SessionDiffLayers,
  type SessionDiffSide,
  type TurnsDiff,
} from './session-diff.js';
export {
  Bm25Retriever,
  JaccardRetriever,
  searchTerms,
  type ContextRetriever,
  type Ranked,
  type Retrievable,
  type RetrievalQuery,
  type RetrieverHost,
} from './context-retriever.js';
export {
  hybridRetriever,
  vectorRetriever,
  reciprocalRankFusion,
  HybridRetriever,
  VectorRetriever,
  type HybridRetrieverOptions,
  type VectorRetrieverOptions,
} from './semantic-retriever.js';
export { Embedding, embeddingKey, embeddingPut, embeddingsExtension } from './embeddings.js';
export { cosineSimilarity, type VectorMatch, type VectorSearch } from './vector-search.js';
export { PromptBuilder, type BuildOptions, type BuiltPrompt, type PromptStages } from './prompt-builder.js';
export { IMAGE_TOKENS, DOCUMENT_FILE_TOKENS, countPrompt } from './prompt-tokens.js';
export { fitTurns } from './fit-turns.js';
export type { PromptRecord, TurnRange } from './prompt-record.js';
export type { RelevanceConfig } from './relevant-context.js';
export { planTokens, type Plan, type PlanInput, type TokenBudget } from './token-planner.js';
export { orderPreferences, systemInstruction, CONFLICT_RULE, type PreferenceTier } from './instructions.js';
export { transcriptSnapshot, groupTurns, supersede, SUPERSEDED_NOTE, type TranscriptMerge, type TranscriptSnapshot } from './transcript.js';
export { CONTINUED, NO_RESULT, isTextDocument, pairToolCalls, toMessages } from './messages.js';
export { summarize, summarizeInChunks, SUMMARY_INSTRUCTION } from './summarizer.js';
export { promptRecordOf, type RespondOptions } from './respond.js';
