/** Environments (seed 000): things the model edits directly through one validated instruction, their persistence, and the bookshelf. */
export type {
  ActionResult,
  EditableFieldDefinition,
  EditableFieldType,
  EditableStatus,
  EditableStatusSchema,
  EditableStatusUpdateResult,
  Environment,
  EnvironmentInfo,
  FieldValidation,
  HowToCall,
  RenderContextOptions,
} from './environment.js';
export { inlineJson, renderFields, renderHowTo, textInstruction, validateFieldValue, writeInstruction } from './environment.js';
export { BaseEnvironment, type FieldSpec } from './base-environment.js';
export { EnvironmentState, environmentExtension, environmentUpdate, environmentValuesAt } from './environment-plugin.js';
export { environmentDiffLayer, type EnvironmentDifference } from './environment-diff.js';
export { BookshelfEnvironment, splitPages, type Book, type BookshelfOptions } from './bookshelf.js';
