/**
 * The rules a model-built UI follows without a model round trip (templates, visibility, the
 * fields' value checks, action handlers): the engine's own module, so the page and the server
 * cannot disagree.
 */
import { stripBidiControls } from '../../src/core/text.js';
import { fillTemplate as fillStateTemplate, type RuleState } from '../../src/ui/rules.js';

export {
  DISPLAY_TYPES,
  INPUT_TYPES,
  fieldShown,
  handlerPatches,
  isVisible,
  liveState,
  readPath,
  valueProblem,
  type RuleField,
  type RuleState,
  type VisibilityRule,
} from '../../src/ui/rules.js';

/**
 * A label, title or description of the model's UI as the page draws it: its templates filled,
 * and without bidirectional controls (a right-to-left override could make a label read as
 * something else; labels are drawn in the order they were written).
 */
export function fillTemplate(text: string, state: RuleState | undefined): string {
  return stripBidiControls(fillStateTemplate(text, state));
}
