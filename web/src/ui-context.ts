/**
 * What every field of a model-built UI may need beyond its own value, given once by the panel:
 * the server's catalog (renderers of registered components, allowed image hosts), the image
 * loader, and the file upload and its removal.
 */
import { createContext } from 'preact';
import type { LoadImage } from './components/BlockData.js';
import type { FileRef, UiCatalog } from './types.js';

export interface UiServices {
  catalog: UiCatalog;
  loadImage: LoadImage;
  upload: (instanceId: string, key: string, file: File) => Promise<FileRef>;
  /** Lets an uploaded file no click has sent go (the field's Remove): the server stops holding it. */
  discard: (instanceId: string, sha256: string) => Promise<void>;
}

export const emptyCatalog: UiCatalog = { components: [], imageHosts: [] };

export const UiContext = createContext<UiServices>({
  catalog: emptyCatalog,
  loadImage: () => Promise.reject(new Error('no image loader')),
  upload: () => Promise.reject(new Error('no upload')),
  discard: () => Promise.resolve(),
});

/** Whether a field type takes input: a built-in input type, or one the catalog registers as input. */
export function inputTypes(catalog: UiCatalog, builtIn: ReadonlySet<string>): (type: string) => boolean {
  const custom = new Set(catalog.components.filter((c) => c.kind === 'input').map((c) => c.type));
  return (type) => builtIn.has(type) || custom.has(type);
}

/** The page's theme as a renderer sees it: the user's choice, else the system's. */
export function currentTheme(): 'light' | 'dark' {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'light' || chosen === 'dark') return chosen;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
