/**
 * The mark on everything the agent builds (its UI instances and their dialogs): a strip the
 * page draws outside what the model controls, so no title, text or field of the model's can
 * hide it, move it or pass for Golem's own prompts (the approval dialog has its own look).
 */
export function AgentLabel({ id }: { id?: string }) {
  return (
    <div class="agent-label" id={id} data-testid="agent-label">
      <svg class="agent-label-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
        <path
          fill="currentColor"
          d="M8 1a1 1 0 0 1 1 1v1h3a2 2 0 0 1 2 2v6a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h3V2a1 1 0 0 1 1-1Zm-2.5 6a1 1 0 1 0 0 2 1 1 0 0 0 0-2Zm5 0a1 1 0 1 0 0 2 1 1 0 0 0 0-2ZM5 14h6v1H5z"
        />
      </svg>
      Built by the agent
    </div>
  );
}
