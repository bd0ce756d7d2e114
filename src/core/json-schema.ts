/**
 * One way to compile JSON Schemas (2020-12) across Golem: actions' inputs and the
 * structured response protocol. It knows the string formats Zod's JSON Schemas use, so a
 * `z.url()` or `z.email()` is checked, not skipped with a warning.
 */
import { Ajv2020, type Options } from 'ajv/dist/2020.js';

const FORMATS: Record<string, (s: string) => boolean> = {
  uri: (s) => /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) && URL.canParse(s),
  email: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
  uuid: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  'date-time': (s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)),
  date: (s) => /^\d{4}-\d\d-\d\d$/.test(s) && !Number.isNaN(Date.parse(s)),
};

/** A compiler with every error reported and the formats above; unknown keywords are allowed (strict off). */
export function schemaCompiler(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, ...options });
  for (const [name, validate] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}
