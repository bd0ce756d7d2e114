/** The HTTP API of `golem serve` (src/serve/api-types.ts), with the token on every call. */
import { IMAGE_DATA_URL } from '../../src/ui/block-data-keys.js';
import type { FileRef, UiCatalog } from './types.js';
import type {
  ApprovalAnswerBody,
  ClearanceDecisionBody,
  ClearanceView,
  SendMessageBody,
  SendMessageResult,
  ServeState,
  SessionComparison,
  MergeBody,
  MergeResult,
  SessionDetail,
  SessionSummary,
  TaskDecisionBody,
  TaskView,
  UnsendResult,
} from '../../src/serve/api-types.js';

/** A refusal of the server (`{ error: { code, message } }`), or a failed request. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export class Api {
  constructor(
    private readonly token: string,
    /** Called on a 401: the token is wrong or stale. */
    private readonly onUnauthorized: () => void,
  ) {}

  state(): Promise<ServeState> {
    return this.request('GET', '/api/state');
  }
  createSession(label?: string): Promise<SessionSummary> {
    return this.request('POST', '/api/sessions', label === undefined ? {} : { label });
  }
  session(id: string): Promise<SessionDetail> {
    return this.request('GET', `/api/sessions/${enc(id)}`);
  }
  /** A message: a run starts on it, or (a run holding the session) it waits in the session's inbox by `policy`. */
  send(id: string, text: string, policy?: SendMessageBody['policy']): Promise<SendMessageResult> {
    return this.request('POST', `/api/sessions/${enc(id)}/messages`, policy === undefined ? { text } : ({ text, policy } satisfies SendMessageBody));
  }
  /** Takes back a message waiting in the session's inbox. */
  unsend(id: string, messageId: string): Promise<UnsendResult> {
    return this.request('DELETE', `/api/sessions/${enc(id)}/inbox/${enc(messageId)}`);
  }
  edit(id: string, turnId: string, text: string): Promise<{ runId: string | null; turn: { id: string; version: number } }> {
    return this.request('POST', `/api/sessions/${enc(id)}/turns/${enc(turnId)}/edit`, { text });
  }
  switchVersion(id: string, turnId: string, direction: 'left' | 'right'): Promise<{ head: unknown }> {
    return this.request('POST', `/api/sessions/${enc(id)}/turns/${enc(turnId)}/switch`, { direction });
  }
  fork(id: string, at?: string): Promise<SessionSummary> {
    return this.request('POST', `/api/sessions/${enc(id)}/fork`, at === undefined ? {} : { at });
  }
  /** Session `a` beside session `b`: the turns each has since their common ancestor, and what else differs. */
  compare(a: string, b: string): Promise<SessionComparison> {
    return this.request('GET', `/api/sessions/${enc(a)}/diff/${enc(b)}`);
  }
  /** Brings session `from` (its head, a branch of the same fork family) into session `id`: a merge turn on its head. */
  merge(id: string, body: MergeBody): Promise<MergeResult> {
    return this.request('POST', `/api/sessions/${enc(id)}/merge`, body);
  }
  stop(id: string): Promise<{ stopped: boolean }> {
    return this.request('POST', `/api/sessions/${enc(id)}/stop`, {});
  }
  answer(approvalId: string, body: ApprovalAnswerBody): Promise<{ ok: true }> {
    return this.request('POST', `/api/approvals/${enc(approvalId)}`, body);
  }
  /** Accepts a proposed plan (as proposed, or with the user's steps) or declines it. */
  decideTask(taskId: string, body: TaskDecisionBody): Promise<{ task: TaskView | undefined }> {
    return this.request('POST', `/api/tasks/${enc(taskId)}`, body);
  }
  clearanceDiff(itemId: string): Promise<{ diff: string }> {
    return this.request('GET', `/api/clearance/${enc(itemId)}/diff`);
  }
  decide(itemId: string, action: ClearanceDecisionBody['action']): Promise<{ item: ClearanceView; message: string }> {
    return this.request('POST', `/api/clearance/${enc(itemId)}`, { action } satisfies ClearanceDecisionBody);
  }

  /**
   * An image a model-built UI shows by blob, as a data URL: the token goes in a header, which
   * an <img> cannot send, and the page's policy loads images from data URLs (and itself) only.
   */
  async uiImage(instanceId: string, sha256: string): Promise<string> {
    let response: Response;
    try {
      response = await fetch(`/api/ui/${enc(instanceId)}/images/${enc(sha256)}`, { headers: { authorization: `Bearer ${this.token}` } });
    } catch (cause) {
      throw new ApiError('NETWORK', `the server did not answer (${(cause as Error).message})`, 0);
    }
    if (response.status === 401) this.onUnauthorized();
    if (!response.ok) throw new ApiError(`HTTP_${response.status}`, 'the image is not available', response.status);
    const bytes = await response.blob();
    const url = await new Promise<string>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
      reader.onerror = () => reject(new ApiError('NOT_AN_IMAGE', 'the image could not be read', response.status));
      reader.readAsDataURL(bytes);
    });
    // Only what the engine would take as src: a raster image, whatever the server said it was.
    if (!IMAGE_DATA_URL.test(url)) throw new ApiError('NOT_AN_IMAGE', 'the blob is not a png, jpeg, gif, webp or avif image', response.status);
    return url;
  }

  /** The UI catalog (GET /api/ui/catalog): the components the server knows and the image hosts allowed; none when the server has no such route. */
  async uiCatalog(): Promise<UiCatalog> {
    try {
      const data = await this.request<Partial<UiCatalog> | null>('GET', '/api/ui/catalog');
      const components = Array.isArray(data?.components) ? data.components : [];
      const hosts = Array.isArray(data?.imageHosts) ? data.imageHosts : [];
      return {
        components: components.filter((c) => typeof c?.type === 'string' && (c.kind === 'input' || c.kind === 'display')),
        imageHosts: hosts.filter((h): h is string => typeof h === 'string'),
      };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return { components: [], imageHosts: [] };
      throw error;
    }
  }

  /** A file field's upload (the raw bytes): the reference its click sends. */
  async uploadUiFile(instanceId: string, key: string, file: File): Promise<FileRef> {
    const headers = {
      authorization: `Bearer ${this.token}`,
      accept: 'application/json',
      'content-type': file.type === '' ? 'application/octet-stream' : file.type,
      'x-file-name': enc(file.name),
    };
    const { data, status } = await this.fetchJson(`/api/ui/${enc(instanceId)}/files/${enc(key)}`, { method: 'POST', headers, body: file }, 'the upload failed');
    const ref = data as Partial<FileRef> | null;
    if (typeof ref?.sha256 !== 'string' || typeof ref.name !== 'string' || typeof ref.mediaType !== 'string' || typeof ref.size !== 'number')
      throw new ApiError('BAD_RESPONSE', 'the server did not answer with a file reference', status);
    return { sha256: ref.sha256, name: ref.name, mediaType: ref.mediaType, size: ref.size };
  }

  /** Lets a file uploaded for a file field and not yet sent go (DELETE /api/ui/<instanceId>/files/<sha256>). */
  async discardUiFile(instanceId: string, sha256: string): Promise<void> {
    const headers = { authorization: `Bearer ${this.token}`, accept: 'application/json', 'content-type': 'application/json' };
    const response = await fetch(`/api/ui/${enc(instanceId)}/files/${enc(sha256)}`, { method: 'DELETE', headers });
    if (response.status === 401) this.onUnauthorized();
  }

  private async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    // The server takes a change only as JSON (no other site's form can send that), a DELETE without a body too.
    if (method !== 'GET') headers['content-type'] = 'application/json';
    return (await this.fetchJson(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })).data as T;
  }

  /** One request: its JSON answer, or the server's refusal (or a failed request) as an ApiError; a 401 tells onUnauthorized. */
  private async fetchJson(path: string, init: RequestInit, refused?: string): Promise<{ data: unknown; status: number }> {
    let response: Response;
    try {
      response = await fetch(path, init);
    } catch (cause) {
      throw new ApiError('NETWORK', `the server did not answer (${(cause as Error).message})`, 0);
    }
    const data = (await response.json().catch(() => null)) as unknown;
    if (response.status === 401) this.onUnauthorized();
    if (!response.ok) {
      const error = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      throw new ApiError(
        typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
        typeof error?.message === 'string' ? error.message : (refused ?? (response.statusText || 'the request failed')),
        response.status,
      );
    }
    return { data, status: response.status };
  }
}

const enc = encodeURIComponent;
