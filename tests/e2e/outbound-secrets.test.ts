import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/fixture.js';
import { git } from '../support/git.js';
import { planOf, replacePatch } from '../support/plans.js';
import { requestTexts, useCliProvider } from '../support/loopback-project.js';
import { replies } from '../support/provider-server.js';

// Every byte sent passes one door (llm/outbound.ts): planted secrets of every shape, in context files, in files
// that are never sent (gitignored, ignored by the settings, not ranked), in the instructions and in the task,
// never reach the provider. The plan, the JSON repair, the patch repair, the wide scope request, the shards and
// their repairs all run through the built CLI; every request the loopback server receives is searched.

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const PKCS8 = rsa.export({ format: 'der', type: 'pkcs8' }).toString('base64');
const KUBE_KEY = Buffer.from(rsa.export({ format: 'pem', type: 'pkcs1' }).toString()).toString('base64');
const MARKERS = {
  openaiKey: 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYQ7x9P2mKEY',
  taskKey: 'sk-proj-Zz9yXw8vUt7sRq6pOn5mLk4jIh3gFe2d',
  pkcs8: PKCS8.slice(100, 160),
  kube: KUBE_KEY.slice(100, 160),
  agentsPassword: 'Xk9#mQ2$vL&p(7);!zR',
  django: 'django-insecure-7x$k2&f!q9(z)m#w8^e3r@t5y*u1i0o',
  dotnet: 'Qz7!x#Lp2$w9&Rk',
  gitignored: 'GITIGNORED-FILE-TEXT-4f1c',
  settingsIgnored: 'SETTINGS-IGNORED-TEXT-9d2e',
};

const FILES: Record<string, string> = {
  '.gitignore': 'deploy/prod.sh\n',
  '.clawcode/settings.json': JSON.stringify({ ignore: ['private/'] }),
  'AGENTS.md': `# Agents\nThe staging database uses password: "${MARKERS.agentsPassword}"\n`,
  'lib/app.js': `// app\nconst config = {\n  name: 'demo',\n  apiKey: '${MARKERS.openaiKey}',\n  retries: 3,\n};\nmodule.exports = config;\n`,
  'deploy/deploy.sh':
    '#!/bin/sh\n# deploy\nexport AWS_ACCESS_KEY_ID=AKIAQ7X9P2M4TESTKEY1\n' +
    Array.from({ length: 12 }, (_, i) => `echo retries step ${i}\n`).join('') +
    `aws configure set aws_secret_access_key ${MARKERS.awsSecret}\naws s3 sync dist s3://bucket\n`,
  'deploy/prod.sh': `#!/bin/sh\n# retries\necho ${MARKERS.gitignored}\n`,
  'private/notes.txt': `retries notes\n${MARKERS.settingsIgnored}\n`,
  'config/service.yaml': `name: svc\nretries: 3\nprivate_key: ${PKCS8}\n`,
  'k8s/kubeconfig.yaml': `users:\n- name: admin\n  user:\n    client-key-data: ${KUBE_KEY}\n# retries\n`,
  'app/settings.py': `RETRIES = 3\nSECRET_KEY = '${MARKERS.django}'\n`,
  'appsettings.json': `{ "Retries": 3, "Db": "Server=tcp:db,1433;Database=app;User ID=admin;Password=${MARKERS.dotnet};" }\n`,
};

// Patches that fail and name every kind of file: one quoting the marker it was shown, one near the AWS secret in a
// file that is sent, one each in a gitignored file and a settings-ignored file (never sent).
const FAILING = planOf([
  replacePatch(
    'lib/app.js',
    "  apiKey: '[REDACTED:openai_key]',\n  retries: 3,",
    '  apiKey: process.env.KEY,\n  retries: 5,',
  ),
  replacePatch('deploy/deploy.sh', 'aws s3 sync dist s3://bucket-old', 'aws s3 sync dist s3://bucket2'),
  replacePatch('deploy/prod.sh', `echo ${MARKERS.gitignored.slice(0, -1)}x`, 'echo x'),
  replacePatch('private/notes.txt', `${MARKERS.settingsIgnored.slice(0, -1)}x`, 'x'),
]);

const cli = useCliProvider();
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  cli.server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-outbound-'));
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(project, path)), { recursive: true });
    await writeFile(join(project, path), text);
  }
  git(project, 'init', '-q');
  env = await cli.freshEnv();
});

/** Every string in every request body the server received, one text per request. */
function sentTexts(): string[] {
  return requestTexts(cli.server);
}

function expectNoMarker(texts: readonly string[]): void {
  for (const [i, text] of texts.entries())
    for (const [name, marker] of Object.entries(MARKERS))
      expect(text.includes(marker), `${name} in request ${i + 1}`).toBe(false);
}

const TASK = `raise retries to 5 everywhere; the old key ${MARKERS.taskKey} is revoked`;

describe('every request passes one redactor and the path policy', () => {
  it('the plan, the JSON repair and the patch repair carry no planted secret and no ignored file', async () => {
    cli.server.reply(replies.text('{"analysis": "cut'), replies.plan(FAILING), replies.plan(FAILING));
    const result = await runCli([TASK, '--dir', project, '--yes', '--provider', 'openai', '--json'], { env });
    expect(result.code, result.stderr).toBe(3);
    const texts = sentTexts();
    expect(texts).toHaveLength(3);
    // The files were sent (redacted), the repair round ran with excerpts of the files that may be sent.
    expect(texts[0]).toContain('## lib/app.js');
    expect(texts[0]).toContain('[REDACTED:private_key]');
    expect(texts[2]).toContain('## Patch 2 (deploy/deploy.sh)');
    expect(texts[2]).toContain('aws configure set aws_secret_access_key [REDACTED:aws_secret_key]');
    expect(texts[2]).toContain('find quotes a [REDACTED:…] marker');
    // A file that is never sent gets no excerpt in the repair round, whatever it holds.
    expect(texts[2]).toMatch(
      /## Patch 3 \(deploy\/prod\.sh\)\n\nError: [^\n]*\(the file's text is not sent\)\n\nfind was:\n```\n[^\n]*\n```\n\n## Patch 4/,
    );
    expect(texts[2]).toMatch(
      /## Patch 4 \(private\/notes\.txt\)\n\nError: [^\n]*\(the file's text is not sent\)\n\nfind was:\n```\n[^\n]*\n```\n\nReply with/,
    );
    expectNoMarker(texts);
  });

  it('--wide: the scope request, every shard and its repair carry none either', async () => {
    cli.server.reply(
      replies.plan({ patterns: ['retries', 'Retries'], pathspecs: [], reason: 'every retries setting' }),
      replies.plan(FAILING),
      replies.plan(FAILING),
    );
    cli.server.setFallback(replies.plan(FAILING));
    const result = await runCli([TASK, '--wide', '--dir', project, '--yes', '--provider', 'openai', '--json'], {
      env,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(3);
    const texts = sentTexts();
    expect(texts.length).toBeGreaterThanOrEqual(3);
    expect(texts.some((t) => t.includes('Reply with the JSON scope only.'))).toBe(true);
    expect(texts.some((t) => t.includes('could not be applied'))).toBe(true);
    expectNoMarker(texts);
  });

  it('--print-prompt prints what would be sent: the same door', async () => {
    const result = await runCli(['--print-prompt', TASK, '--dir', project], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('## lib/app.js');
    expectNoMarker([result.stdout]);
  });

  it('--print-prompt of a wide change prints every shard through the door too', async () => {
    // Redacted, the planted files are small: filler makes the pinned files need several requests.
    for (const n of [1, 2, 3])
      await writeFile(join(project, `lib/filler${n}.js`), `// retries\n${'const x = 1;\n'.repeat(120)}`);
    const result = await runCli(
      [
        '--print-prompt',
        TASK,
        '--files',
        'lib/',
        'config/',
        'k8s/',
        'app/',
        'appsettings.json',
        '--budget',
        '2000',
        '--dir',
        project,
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/===== request 2\/\d+ =====/);
    expect(result.stdout).toContain('[REDACTED:private_key]');
    expectNoMarker([result.stdout]);
  });

  it('a cloned project cannot switch the repair round back on: `repair: true` needs trust', async () => {
    await writeFile(join(env.CLAWCODE_HOME!, 'config.json'), JSON.stringify({ settings: { repair: false } }));
    await writeFile(join(project, '.clawcode/settings.json'), JSON.stringify({ ignore: ['private/'], repair: true }));
    cli.server.reply(replies.plan(FAILING), replies.plan(FAILING));
    const result = await runCli([TASK, '--dir', project, '--yes', '--provider', 'openai'], { env });
    expect(result.code).toBe(3);
    expect(cli.server.completions()).toHaveLength(1);
    expect(result.stderr).toContain('Ignoring untrusted project settings (repair)');
  });
});
