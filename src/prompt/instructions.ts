/**
 * Stage 3 of the prompt pipeline: the system instruction, the role's persona merged with
 * the active preferences.
 *
 * The conflict rule: preferences come in three tiers, listed in this order: the role's
 * defaults, then preferences retrieved for the session's topics and recent turns, then
 * the ones the session chose itself. Within a tier the older comes first. A preference in
 * several tiers is listed once, in its last tier. The instruction tells the model that when
 * two preferences conflict, the later one wins: a session's choice beats a topic's, which
 * beats the role's default, and a newer one beats an older one.
 */
import type { Preference, Role } from '../core/records.js';

export type PreferenceTier = 'role' | 'topic' | 'session';
export const CONFLICT_RULE = 'When two preferences conflict, follow the one listed later.';

/** The active preferences in the order of the conflict rule. */
export function orderPreferences(tiers: Record<PreferenceTier, readonly Preference[]>): { preference: Preference; tier: PreferenceTier }[] {
  const order: PreferenceTier[] = ['role', 'topic', 'session'];
  const lastTier = new Map<string, PreferenceTier>();
  for (const tier of order) for (const p of tiers[tier]) lastTier.set(p.id, tier);
  const out: { preference: Preference; tier: PreferenceTier }[] = [];
  for (const tier of order) {
    const mine = tiers[tier].filter((p) => lastTier.get(p.id) === tier && !out.some((o) => o.preference.id === p.id));
    mine.sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id.localeCompare(b.id));
    for (const preference of mine) out.push({ preference, tier });
  }
  return out;
}

/** The system instruction: persona, preferences, retrieved context, and summaries of earlier turns. */
export function systemInstruction(parts: {
  role: Role | undefined;
  preferences: readonly { preference: Preference }[];
  context: readonly { key: string; content: string }[];
  summaries: readonly string[];
}): string {
  const sections: string[] = [];
  if (parts.role !== undefined && parts.role.persona.trim() !== '') sections.push(parts.role.persona.trim());
  if (parts.preferences.length > 0) {
    sections.push(`## User preferences\n${CONFLICT_RULE}\n${parts.preferences.map((p, i) => `${i + 1}. ${p.preference.content}`).join('\n')}`);
  }
  if (parts.context.length > 0) sections.push(`## Relevant context\n${parts.context.map((c) => `- [${c.key}] ${c.content}`).join('\n')}`);
  if (parts.summaries.length > 0) sections.push(`## Earlier conversation (summary)\n${parts.summaries.join('\n\n')}`);
  return sections.join('\n\n');
}
