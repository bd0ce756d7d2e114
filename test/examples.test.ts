import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..');

describe('examples', () => {
  it('quickstart runs and prints what the README says', async () => {
    const dir = join(tempDir(), '.golem');
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts', dir], { cwd: root });
    expect(stdout).toContain('versions of the question: [ 0, 1 ]');
    expect(stdout).toContain("transcript: [ 'How many chambers has the heart?', 'Four.' ]");
    expect(stdout).toContain('references to the pdf: 1');
    expect(stdout).toContain('a refused command: TURN_NOT_FOUND');
    expect(stdout).toMatch(/sessions: 2,\s+turns: 4,/);
  });

  it('the bookshelf runs offline: search, open, navigate, read', async () => {
    const env = { ...process.env };
    delete env.GOLEM_MODEL;
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/bookshelf/run.ts', join(tempDir(), '.golem')], { cwd: root, env });
    expect(stdout).toContain('✓ semantic_search {"query":"heart chambers"}');
    expect(stdout).toContain('✓ update_editable_status {"fieldName":"selected_book_name","value":"Physiology"}');
    expect(stdout).toContain('The heart has four chambers: two atria receive the blood and two ventricles pump it out.');
    expect(stdout).toMatch(/done after 4 model calls; the shelf is at Physiology, page \d+/);
  });

  it('respond runs offline with the scripted model, retrieving only the relevant context', async () => {
    const env = { ...process.env };
    delete env.GOLEM_MODEL;
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/respond.ts'], { cwd: root, env });
    expect(stdout).toContain('The heart has four chambers: two atria and two ventricles.');
    expect(stdout).toMatch(/sent 1 turn\(s\); context: heart \(0\.\d+\); preferences: brief \[role\]/);
  });

  it("seed 001's Shadow Turn recipe: a hidden system turn before every user turn, read by the model, hidden from the user", async () => {
    const env = { ...process.env };
    delete env.GOLEM_MODEL;
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/recipes/shadow-turn.ts'], { cwd: root, env });
    expect(stdout).toMatch(/answer: As of your message: Now: \d{4}-\d\d-\d\dT\d\d:\d\d UTC\. deploy #41 of api is rolling out: 3 of 5 pods ready\./);
    expect(stdout).toContain('deploy #41 of api finished: 5 of 5 pods ready.');
    expect(stdout).toContain('the user sees 4 turns: user, assistant, user, assistant');
    expect(stdout).toContain('the model saw 6: shadow, user, assistant, shadow, user, assistant');
  });

  it("seed 001's Automatic Topic Discovery recipe: a cheap model tags each user turn, and retrieval follows the topics", async () => {
    const env = { ...process.env };
    delete env.GOLEM_TOPIC_MODEL;
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/recipes/topic-discovery.ts'], { cwd: root, env });
    expect(stdout).toContain("after the first message: [ 'cardiology' ]");
    expect(stdout).toContain("after the second: [ 'cardiology', 'exercise' ]");
    expect(stdout).toContain('context in the next prompt: beta-blockers, zone-2');
  });

  it('semantic recall runs offline: a paraphrased question brings its entry in, and a reopen embeds only the question', async () => {
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/recall.ts', tempDir()], { cwd: root });
    expect(stdout).toContain('bm25: context [], vectors kept 0');
    expect(stdout).toContain('hybrid: context ["deploy-freeze"], vectors kept 2');
    expect(stdout).toContain('texts embedded after the reopen: 1');
  });

  it('tasks and plans run offline: a plan proposed, accepted with an edit, marked as it goes, and read by a new session on the topic', async () => {
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/tasks.ts', tempDir()], { cwd: root });
    expect(stdout).toContain('asked: Plan: Fix invoice rounding');
    expect(stdout).toContain('task "Fix invoice rounding" is accepted:\n  [x] 1. Find the rounding code\n  [~] 2. Fix it\n  [ ] 3. Run the billing tests');
    expect(stdout).toContain("## Open tasks\nAccepted plans not yet done: those of other sessions on this conversation's topics (billing)");
    expect(stdout).toMatch(/Task \S+ "Fix invoice rounding" \(session \S+, topics: billing\):\n\[x\] 1\. Find the rounding code\n\[~\] 2\. Fix it/);
  });

  it('merge runs offline: a what-if branch merged back, its turns marked in the prompt, then as a summary', async () => {
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'examples/merge.ts', tempDir()], { cwd: root });
    expect(stdout).toContain('merge turn: Merged 2 turns from the branch "what-if: Lisbon" into this conversation.');
    expect(stdout).toContain(
      [
        '  assistant: Porto: two nights by the river, 320 euros.',
        '  user: [System note] The next 2 turns come from the branch "what-if: Lisbon", which parted from this conversation earlier; they are merged into this conversation here.',
        '  user: What if we went to Lisbon instead?',
        '  assistant: Lisbon: three nights in Alfama, 410 euros.',
        '  user: [System note] Merged 2 turns from the branch "what-if: Lisbon" into this conversation.',
        '  user: Which of the two costs less per night?',
      ].join('\n'),
    );
    expect(stdout).toContain('the prompt record: merged 2 turns as turns');
    expect(stdout).toContain('as a summary of its 2 turns since the branches parted:\n\nLisbon was weighed: three nights in Alfama for 410 euros.');
  });
});
