/**
 * Retention: storage that follows what users keep. Policies (`RetentionPolicy`), pins
 * (`turn:pin`, `session:pin`), the holds of the parts above the core, the sweep commands,
 * `ws.retention` (`RetentionApi`) and log compaction's plan for the stores.
 */
import type { CommandDefinition, CommandMapOf, WorkspaceExtension } from '../plugin.js';
import type { RetentionHolds } from './holds.js';
import { PinRecord, sessionPin, sessionUnpin, turnPin, turnUnpin } from './pins.js';
import { sweepCommands } from './sweep-commands.js';

export { pinHolds, holdsBySession, type RetentionHold, type RetentionHolds } from './holds.js';
export { PinRecord, pinKey, sessionPin, sessionUnpin, turnPin, turnUnpin } from './pins.js';
export { parseRetentionPolicy, RetentionAge, RetentionPolicy, TurnRetention, type RetentionPolicyInput } from './policy.js';
export { RetentionApi, type RetentionOptions, type RetentionReport } from './retention-api.js';
export { sweepCommands, type SweepOutcome } from './sweep-commands.js';
export { planCompaction, type CompactionPlan, type CompactionRow } from './log-compaction.js';

const PIN_COMMANDS = [turnPin, turnUnpin, sessionPin, sessionUnpin] as const;

/** Each pin command's payload and result. */
export type PinCommandMap = CommandMapOf<(typeof PIN_COMMANDS)[number]>;

declare module '../manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends PinCommandMap {}
}

/** The commands and the `pin` collection of retention, with what the parts given keep (`createWorkspace` registers it). */
export function retentionExtension(holds: readonly RetentionHolds[] = []): WorkspaceExtension {
  return {
    name: 'retention',
    collections: { pin: PinRecord },
    commands: [...PIN_COMMANDS, ...sweepCommands(holds)] as unknown as CommandDefinition<unknown, unknown, unknown>[],
  };
}
