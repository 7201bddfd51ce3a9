// npm's `prepare`: build, so that a checkout installed as a command (`npm ci`, then `npm i -g .`) works.
// - `npm pack` and `npm publish` run `prepack` (which builds), then `prepare`: build once.
// - An installed package has dist/ and no sources (npm lists `prepare` among the install scripts of a package
//   installed from a tarball, and runs it when allowed): nothing to build there.
// - A checkout whose dependencies are not installed cannot build: say what to run.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const here = (path) => existsSync(new URL(`../${path}`, import.meta.url));
if (here('tsconfig.json') && !['pack', 'publish'].includes(process.env.npm_command ?? '')) {
  if (!here('node_modules/typescript/bin/tsc')) {
    console.error('clawcode: this checkout has no dependencies installed: run `npm ci` in it first (it builds too).');
    process.exit(1);
  }
  const npm = process.env.npm_execpath;
  const run = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exitCode = run.status ?? 1;
}
