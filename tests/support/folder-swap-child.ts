// Child process for the write-race tests (tests/e2e/write-races.test.ts): swaps a project folder with a symlink
// that points out of the project, as fast as it can, until the stop file exists; prints "swapping" once started.
// argv: <folder> <symlink> <stopFile> <mode>. Mode `rename` swaps with three renames (portable); `exchange` makes
// one atomic renameat2(RENAME_EXCHANGE) call per swap through python3's ctypes (Linux).
import { spawn } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';

const [folder, link, stop, mode] = process.argv.slice(2);
if (!folder || !link || !stop) throw new Error('usage: folder symlink stopFile rename|exchange');
process.stdout.write('swapping\n');
if (mode === 'exchange') {
  const script = [
    'import ctypes, os, sys',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'a, b, stop = (s.encode() for s in sys.argv[1:4])',
    'while not os.path.exists(stop): libc.renameat2(-100, a, -100, b, 2)',
  ].join('\n');
  const child = spawn('python3', ['-c', script, folder, link, stop], { stdio: 'inherit' });
  child.on('close', (code) => process.exit(code ?? 1));
} else {
  const aside = `${folder}.aside`;
  while (!existsSync(stop)) {
    renameSync(folder, aside);
    renameSync(link, folder);
    renameSync(aside, link);
  }
}
