import { describe, expect, it } from 'vitest';
import { runCli } from '../support/fixture.js';
import { planRequestText, useLoopbackProject } from '../support/loopback-project.js';

// A key written so that no one literal holds it whole: split into concatenated literals (`+`, Python's adjacent
// literals, a template literal), spelled with escapes (`\u0073k-…`, `\x73k-…`, a JSON string holding JSON), encoded
// (base64, hex, percent-escapes) or with an invisible character inside. A model reads each as the program does,
// so none may reach the provider. Markers are the tails of the keys, which no spelling leaves intact.

const TAIL = {
  plus: 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
  python: 'Cd4eFg7hIj0kLm3nOp6qRs9tUv2wXy5z',
  template: 'Ef5gHi8jKl1mNo4pQr7sTu0vWx3yZa6b',
  unicode: 'Gh6iJk9lMn2oPq5rSt8uVw1xYz4aBc7d',
  hex: 'Ij7kLm0nOp3qRs6tUv9wXy2zAb5cDe8f',
  base64: 'Kl8mNo1pQr4sTu7vWx0yZa3bCd6eFg9h',
  percent: 'Mn9oPq2rSt5uVw8xYz1aBc4dEf7gHi0j',
  invisible: 'Op0qRs3tUv6wXy9zAb2cDe5fGh8iJk1l',
  nested: 'Qr1sTu4vWx7yZa0bCd3eFg6hIj9kLm2n',
  notebook: 'lilac4comet',
};
const hex = (s: string): string => Buffer.from(s).toString('hex');
const b64 = (s: string): string => Buffer.from(s).toString('base64');

const FILES: Record<string, string> = {
  'src/client.js': [
    `const KEY = "sk-" + "proj-${TAIL.plus}";`,
    `const TEMPLATED = \`sk-proj-\${"${TAIL.template}"}\`;`,
    `const ESCAPED = "\\u0073k-proj-${TAIL.unicode}";`,
    `const HEXED = Buffer.from("${hex(`sk-proj-${TAIL.hex}`)}", "hex").toString();`,
    `const B64 = atob("${b64(`sk-proj-${TAIL.base64}`)}");`,
    `const URL = "https://api.example.com/?k=sk%2Dproj%2D${TAIL.percent}";`,
    `const HIDDEN = "sk-proj-${TAIL.invisible.slice(0, 10)}\u200b${TAIL.invisible.slice(10)}";`,
    'module.exports = { KEY };',
    '',
  ].join('\n'),
  'src/settings.py': `API_KEY = (\n    "sk-proj-"\n    "${TAIL.python}"\n)\n`,
  'config/app.json': JSON.stringify({ raw: JSON.stringify({ openai: `sk-proj-${TAIL.nested}` }) }, null, 2) + '\n',
  'notebooks/explore.ipynb':
    JSON.stringify(
      {
        cells: [
          { cell_type: 'code', source: ['import db\n', `password = "${TAIL.notebook}"\n`, 'db.connect(password)\n'] },
        ],
      },
      null,
      1,
    ) + '\n',
};

const project = useLoopbackProject({ prefix: 'clawcode-secret-spellings-', files: FILES });
const TASK = 'rename KEY to OPENAI_KEY in the client, the settings, the app config and the notebook';
const PINS = ['--files', 'src/', 'config/', 'notebooks/'];

function expectNoTail(text: string, where: string): void {
  for (const [name, tail] of Object.entries(TAIL)) {
    expect(text.includes(tail), `${name} in ${where}`).toBe(false);
    expect(text.includes(tail.slice(-12)), `${name}'s last 12 characters in ${where}`).toBe(false);
  }
  for (const spelled of [hex(`sk-proj-${TAIL.hex}`), b64(`sk-proj-${TAIL.base64}`)])
    expect(text.includes(spelled), `${spelled} in ${where}`).toBe(false);
}

describe('a key split, escaped, encoded or hidden', () => {
  it('never reaches the provider in the plan request (fails before the views of secret-views.ts)', async () => {
    const texts = [await planRequestText(project, [TASK, ...PINS])];
    for (const path of Object.keys(FILES)) expect(texts[0]).toContain(`## ${path}`);
    expect(texts[0]).toContain('const KEY = "[REDACTED:openai_key]";');
    expect(texts[0]).toContain('module.exports = { KEY };');
    expectNoTail(texts[0]!, 'the plan request');
  });

  it('--print-prompt prints none of them', async () => {
    const result = await runCli(['--print-prompt', TASK, ...PINS, '--dir', project.project], { env: project.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('## src/settings.py');
    expectNoTail(result.stdout, '--print-prompt');
  });
});
