/**
 * The rules a model-built UI follows without a model round trip (templates, visibility, the
 * fields' value checks, action handlers): the engine's own module, so the page and the server
 * cannot disagree.
 */
export {
  DISPLAY_TYPES,
  INPUT_TYPES,
  fieldShown,
  fillTemplate,
  handlerPatches,
  isVisible,
  liveState,
  readPath,
  valueProblem,
  type RuleField,
  type RuleState,
  type VisibilityRule,
} from '../../src/ui/rules.js';
