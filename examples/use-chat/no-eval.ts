// golem serve's pages run under a Content-Security-Policy that refuses eval. zod (inside the
// AI SDK) tries it once to speed up its checks, and the browser logs the refusal: this tells
// zod not to. Imported first, before the AI SDK makes its schemas.
import { config } from 'zod';

config({ jitless: true });
