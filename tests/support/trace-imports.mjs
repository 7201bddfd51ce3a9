// Loaded with `node --import ./tests/support/trace-imports.mjs`: registers a resolve hook that
// appends every resolved module URL to the file named by CLAWCODE_TRACE_IMPORTS, so a test can
// check which modules a command loads (e.g. that --version loads no provider SDK and no Ink).
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.CLAWCODE_TRACE_IMPORTS) appendFileSync(process.env.CLAWCODE_TRACE_IMPORTS, result.url + '\\n');
  return result;
}`),
);
