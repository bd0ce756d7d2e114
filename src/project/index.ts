/** A project on disk: files confined to its root, git staging for manual mode, and the built-in project actions with the shell runner and its risk rules. */
export { defaultStagingDir, GitStaging, type StageRef } from './git-staging.js';
export { DiskFiles, type DiskFilesOptions } from './project-files.js';
export { projectActions } from './project-actions.js';
export { isLoaderVariable } from './loader-variables.js';
