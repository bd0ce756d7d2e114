/**
 * The server's UI catalog (GET /api/ui/catalog), read once when the page starts: which
 * components it knows beyond the page's own (and their renderers), and the image hosts it
 * allows. A server without the route, or a failed read, is an empty catalog.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.js';
import type { UiCatalog } from './types.js';
import { emptyCatalog } from './ui-context.js';

export function useUiCatalog(api: Api): UiCatalog {
  const [catalog, setCatalog] = useState<UiCatalog>(emptyCatalog);
  useEffect(() => {
    let live = true;
    api.uiCatalog().then(
      (read) => live && setCatalog(read),
      () => {
        // Unknown components show their value as JSON meanwhile; nothing else needs the catalog.
      },
    );
    return () => {
      live = false;
    };
  }, [api]);
  return catalog;
}
