/** Model-built UIs (seed 004): instances changed only by `patch_ui_state` (and a user's clicks), read back by `get_ui_state` and `list_ui_instances`, the patch engine, the catalog of components, the rules the page shares, the schema and the workspace facade. */
export { UIApi, PatchUiStateInput, type UIClickResponse, type UIPatchResponse } from './ui-api.js';
export { UICatalog, builtinCatalog, type CatalogView, type ComponentKind, type ComponentSpec } from './catalog.js';
export { clickPatches, findAction, type ClickPlan, type UIClick } from './ui-click.js';
export {
  fillTemplate,
  handlerPatches,
  fieldShown,
  isVisible,
  liveState,
  readPath,
  valueProblem,
  DISPLAY_TYPES,
  HANDLER_TYPES,
  INPUT_TYPES,
  type Handler,
  type RuleBlock,
  type RuleState,
  type VisibilityRule,
} from './rules.js';
export {
  listUiInstances,
  readableBy,
  readUiState,
  UI_LIST_MAX,
  UI_READ_MAX_CHARS,
  type UIInstanceList,
  type UIInstanceSummary,
  type UIReadOptions,
  type UIStateRead,
} from './ui-read.js';
export { UIUploads, type UploadInput } from './ui-upload-api.js';
export { shownInstanceId, userInstanceId, userScope } from './ui-scope.js';
export { DEFAULT_UPLOAD_LIMITS, UIUploadRecord, uiUploads, type UploadLimits } from './ui-uploads.js';
export { onUiChange, uiExtension, uiInstance, uiInstances, UIInstanceRecord, type UIClickResult, type UIPatchResult } from './ui-plugin.js';
export {
  applyPatchInput,
  parsePath,
  CREATE_INSTANCE,
  DELETE_INSTANCE,
  PATCH_OPS,
  UI_PATCH_ERROR_CODES,
  type JsonPatchOperation,
  type PatchInput,
  type PatchOp,
  type PatchOperation,
  type PatchOutcome,
  type UIPatchError,
  type UIPatchErrorCode,
} from './patch-engine.js';
export { uiDiffLayer, type UIDifference } from './ui-diff.js';
export { blockDataProblem, type BlockDataProblem } from './block-data.js';
export { BLOCK_DATA_KEYS, type BlockDataKey, type BlockDataProp } from './block-data-keys.js';
export { ActionConfig, Block, FieldConfig, UIInstance, ACTION_STYLES, BLOCK_TYPES, FIELD_TYPES, LAYOUT_TYPES, META_STATUSES } from './schema.js';
