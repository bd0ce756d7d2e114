/** Model-built UIs (seed 004): instances changed only by `patch_ui_state`, read back by `get_ui_state` and `list_ui_instances`, the patch engine, the schema and the workspace facade. */
export { UIApi, PatchUiStateInput, type UIPatchResponse } from './ui-api.js';
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
export { uiExtension, uiInstance, uiInstances, UIInstanceRecord, type UIPatchResult } from './ui-plugin.js';
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
export { blockDataProblem, type BlockDataProblem } from './block-data.js';
export { BLOCK_DATA_KEYS, type BlockDataKey, type BlockDataProp } from './block-data-keys.js';
export { ActionConfig, Block, FieldConfig, UIInstance, ACTION_STYLES, BLOCK_TYPES, FIELD_TYPES, LAYOUT_TYPES, META_STATUSES } from './schema.js';
