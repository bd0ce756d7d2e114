/**
 * A chat page on `golem serve`, made with the AI SDK's `useChat` and nothing of Golem's: the
 * answers stream in, a call that needs the user's approval shows Approve and Deny (and Send
 * waits for the answer), and the answer goes back to Golem by itself (`sendAutomaticallyWhen`),
 * which runs the call (or tells the model no) and goes on. Golem keeps the thread, so each
 * request carries only the message Golem reads. Build it with vite (vite.config.ts), serve it
 * with serve.ts, open the address it prints.
 */
import './no-eval';
import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type PrepareSendMessagesRequest,
  type UIMessage,
} from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

// golem serve prints the page's address with its token in the fragment (#token=…), which no request carries.
const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? sessionStorage.getItem('token') ?? '';
sessionStorage.setItem('token', token);
history.replaceState(null, '', location.pathname);

// Golem keeps the thread and reads one message: the answered one `messageId` names, or the new one (the last). Sending
// that one alone keeps each request small, where the whole history would count against the body's limit (8 MiB).
const lastMessageOnly: PrepareSendMessagesRequest<UIMessage> = ({ id, messages, trigger, messageId }) => {
  const message = messages.find((m) => m.id === messageId) ?? messages.at(-1);
  return { body: { id, trigger, messageId, messages: message === undefined ? [] : [message] } };
};

const transport = new DefaultChatTransport({
  api: '/api/chat',
  headers: { authorization: `Bearer ${token}` },
  prepareSendMessagesRequest: lastMessageOnly,
});

function Chat() {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const answer = (id: string, approved: boolean) => void addToolApprovalResponse({ id, approved, ...(!approved && { reason: 'the user said no' }) });
  // While a call waits for its answer, Golem takes no new message (APPROVAL_PENDING). After an error the chat stays in
  // status 'error' until the next request: the user may send again.
  const asking = messages.some((m) => m.parts.some((part) => isToolUIPart(part) && part.state === 'approval-requested'));
  const busy = status === 'submitted' || status === 'streaming';
  return (
    <main>
      {messages.map((message) => (
        <div key={message.id} className={message.role}>
          {message.parts.map((part, i) => {
            if (part.type === 'text') return <p key={i}>{part.text}</p>;
            if (isToolUIPart(part)) return <ToolCall key={i} part={part} answer={answer} />;
            return null;
          })}
        </div>
      ))}
      {error !== undefined && <p role="alert">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (busy || asking || input.trim() === '') return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit" disabled={busy || asking || input.trim() === ''}>
          Send
        </button>
      </form>
    </main>
  );
}

type ToolPart = Extract<UIMessage['parts'][number], { toolCallId: string }>;

function ToolCall({ part, answer }: { part: ToolPart; answer: (id: string, approved: boolean) => void }) {
  return (
    <div className="tool">
      <code>
        {getToolName(part)} {JSON.stringify(part.input)}
      </code>
      {part.state === 'approval-requested' && (
        <p>
          <button onClick={() => answer(part.approval.id, true)}>Approve</button>
          <button onClick={() => answer(part.approval.id, false)}>Deny</button>
        </p>
      )}
      {part.state === 'output-available' && <p>✓ {typeof part.output === 'string' ? part.output : JSON.stringify(part.output)}</p>}
      {part.state === 'output-error' && <p>✗ {part.errorText}</p>}
      {part.state === 'output-denied' && <p>✗ denied</p>}
    </div>
  );
}

createRoot(document.getElementById('app')!).render(<Chat />);
