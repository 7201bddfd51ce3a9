/**
 * Redaction speed (utils/policy/secrets.ts): characters per millisecond on large real files and on
 * adversarial inputs (the rule keywords repeated, long runs of base64 and of name-like text), plus the
 * slowest vendored rules. `npx tsx bench/redaction.ts [file...]`; never part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import { redactSecrets } from '../utils/policy/secrets.js';
import { GITLEAKS_RULES } from '../utils/policy/secret-rules.js';

function time(label: string, text: string): void {
  redactSecrets(text.slice(0, 1000));
  const runs = 3;
  const started = performance.now();
  let found = 0;
  for (let i = 0; i < runs; i++) found = redactSecrets(text).redactions.reduce((n, r) => n + r.count, 0);
  const ms = (performance.now() - started) / runs;
  console.log(
    `${label.padEnd(44)} ${String(text.length).padStart(9)} chars ${ms.toFixed(1).padStart(8)} ms ${Math.round(
      text.length / ms,
    )
      .toString()
      .padStart(7)} chars/ms  ${found} found`,
  );
}

const files = process.argv.slice(2);
const defaults = [
  'node_modules/typescript/lib/typescript.js',
  'node_modules/typescript/lib/lib.dom.d.ts',
  'package-lock.json',
];
for (const f of files.length > 0 ? files : defaults) {
  try {
    time(f, readFileSync(f, 'utf8'));
  } catch {
    console.log(`${f}: not found`);
  }
}
const keywords = [...new Set(GITLEAKS_RULES.rules.flatMap((r) => r.keywords))];
time('adversarial: every keyword, 2000 times', Array.from({ length: 2000 }, () => keywords.join(' = ')).join('\n'));
time('adversarial: 1 MB of base64 after AKIA', 'AKIAABCDEFGHIJKLMNOP ' + 'aB3+'.repeat(250_000));
time('adversarial: token=token=token… 1 MB', 'token='.repeat(170_000));
time('adversarial: secret_key_name_ 1 MB no value', 'secret_key_name_'.repeat(64_000));
time('adversarial: one minified line, key: 60k times', 'a:1,key:value1234567,'.repeat(60_000));
time('adversarial: 1 MB of base64 starting with M', 'MIIE' + 'aB3+'.repeat(250_000));
time('adversarial: postgres://u:p 1 MB no @', 'postgres://user:' + 'p'.repeat(1_000_000));
