// Make the built entry executable so `./dist/cli.js` and `npm link` work without `node`, and put the vendored
// bash grammar beside the built code (utils/shell/parse.ts loads it from ../../vendor, in dist/ as in the source).
import { chmodSync, cpSync } from 'node:fs';
chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
cpSync(new URL('../vendor/', import.meta.url), new URL('../dist/vendor/', import.meta.url), { recursive: true });
