/**
 * `/diff <session>` in the chat: this session and another compared (`ws.sessions.diff`),
 * printed compactly: where they parted, each side's turns since (a line each), then the
 * environment values, UI instances and clearance items that differ.
 */
import type { Turn } from '../core/records.js';
import type { SessionDiff } from '../prompt/session-diff.js';

/** Turns shown per side; the rest are counted. */
const TURNS_SHOWN = 8;
/** The longest line a turn or a patch takes. */
const LINE = 100;

/** The comparison of this session (a) with `other` (b) as lines for the terminal. */
export function sessionDiffView(diff: SessionDiff, other: { id: string; label: string | null }): string {
  const there = `…${other.id.slice(-12)}${other.label === null ? '' : ` "${other.label}"`}`;
  const { turns, environment, ui, clearance } = diff;
  const lines = [
    turns.base === null
      ? `This session and ${there} share no history.`
      : `This session and ${there} parted after turn …${turns.base.id.slice(-12)} (version ${turns.base.version}).`,
  ];
  for (const [side, name] of [
    ['a', 'This session'],
    ['b', there],
  ] as const) {
    const since = turns[side];
    lines.push(`${name} since then: ${since.length === 0 ? 'no turns' : `${since.length} turn${since.length === 1 ? '' : 's'}`}`);
    for (const turn of since.slice(-TURNS_SHOWN)) lines.push(clip(`  ${turn.role.padEnd(9)} ${turnText(turn)}`));
    if (since.length > TURNS_SHOWN) lines.splice(lines.length - TURNS_SHOWN, 0, `  … ${since.length - TURNS_SHOWN} earlier`);
  }
  lines.push(environment.length === 0 ? 'Environment: the same.' : `Environment (${environment.length} differ, here → there):`);
  for (const e of environment) lines.push(clip(`  ${e.environment}.${e.field}  ${JSON.stringify(e.a)} → ${JSON.stringify(e.b)}`));
  lines.push(ui.length === 0 ? 'UI: the same.' : `UI (${ui.length} differ, as RFC 6902 from here to there):`);
  for (const u of ui) {
    if (u.change !== 'changed') lines.push(`  ${u.instanceId}  only ${u.change === 'added' ? 'there' : 'here'}`);
    else for (const op of u.patch) lines.push(clip(`  ${u.instanceId}  ${op.op} ${op.path}${'value' in op ? ` ${JSON.stringify(op.value)}` : ''}`));
  }
  lines.push(`Clearance waiting: ${clearance.a.length} here, ${clearance.b.length} there.`);
  for (const [side, name] of [
    ['a', 'here'],
    ['b', 'there'],
  ] as const) {
    for (const c of clearance[side]) lines.push(clip(`  ${name.padEnd(5)} ${c.id.slice(-12)}  ${c.type}  ${c.description}`));
  }
  return `${lines.join('\n')}\n`;
}

/** A turn on one line: its text, or what its blocks are. */
function turnText(turn: Turn): string {
  const parts = turn.blocks.map((b) =>
    b.type === 'text' ? b.text : b.type === 'tool_use' ? `→ ${b.name}` : b.type === 'tool_result' ? '← result' : `[${b.type}]`,
  );
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

function clip(line: string): string {
  return line.length > LINE ? `${line.slice(0, LINE - 1)}…` : line;
}
