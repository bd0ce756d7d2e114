/** Actions: the unit of capability every part offers the model (`defineAction`), and what an action's approval request says. */
export {
  canonicalJson,
  defineAction,
  defineJsonSchemaAction,
  type Action,
  type ActionContext,
  type ApprovalDescription,
  type InputIssue,
  type Media,
  type Trust,
} from './action.js';
export type { FileAccess, FileChange } from './files.js';
