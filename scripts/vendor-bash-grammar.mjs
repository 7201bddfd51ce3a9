// Refresh vendor/tree-sitter-bash/ from the grammar's npm package: its WebAssembly build and its licence, the
// only two files clawcode uses (utils/shell/parse.ts). The package itself also ships C sources, prebuilt
// native addons and an install script that builds one, none of which clawcode runs.
// Usage: node scripts/vendor-bash-grammar.mjs [version]   (default: the version in vendor/tree-sitter-bash/VERSION)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dest = new URL('../vendor/tree-sitter-bash/', import.meta.url);
const version = process.argv[2] ?? readFileSync(new URL('VERSION', dest), 'utf8').trim();
const work = mkdtempSync(join(tmpdir(), 'clawcode-vendor-'));
try {
  const tgz = execFileSync('npm', ['pack', `tree-sitter-bash@${version}`, '--silent'], { cwd: work, encoding: 'utf8' });
  execFileSync('tar', ['xzf', tgz.trim(), 'package/tree-sitter-bash.wasm', 'package/LICENSE'], { cwd: work });
  copyFileSync(join(work, 'package', 'tree-sitter-bash.wasm'), new URL('tree-sitter-bash.wasm', dest));
  copyFileSync(join(work, 'package', 'LICENSE'), new URL('LICENSE', dest));
  const sha256 = createHash('sha256')
    .update(readFileSync(new URL('tree-sitter-bash.wasm', dest)))
    .digest('hex');
  writeFileSync(new URL('VERSION', dest), `${version}\n`);
  writeFileSync(new URL('SHA256', dest), `${sha256}  tree-sitter-bash.wasm\n`);
  console.log(`vendor/tree-sitter-bash: tree-sitter-bash@${version}, sha256 ${sha256}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
