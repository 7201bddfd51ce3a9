// Make the built entry executable so `./dist/cli.js` and `npm link` work without `node`.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
