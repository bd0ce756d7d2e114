/**
 * The rules a model-built UI follows without a model round trip (templates, visibility, the
 * fields' value checks, action handlers): the engine's own module, so the page and the server
 * cannot disagree.
 */
export {
  DISPLAY_TYPES,
  INPUT_TYPES,
  fillTemplate,
  handlerPatches,
  isVisible,
  readPath,
  valueProblem,
  type RuleState,
  type VisibilityRule,
} from '../../src/ui/rules.js';
