import { describe, expect, it } from 'vitest';
import { isSecretPath, redactSecrets } from '../../../utils/policy/secrets.js';

describe('isSecretPath', () => {
  it('flags env files, keys, certificates and credential files', () => {
    for (const p of [
      '.env',
      'app/.env.local',
      '.env.production',
      'deploy/server.key',
      'tls/cert.pem',
      '.ssh/id_ed25519',
      'id_rsa.pub',
      'home/.aws/config',
      'credentials',
      'gcp/service-account.json',
      '.npmrc',
      'infra/terraform.tfstate',
    ]) {
      expect(isSecretPath(p), p).toBe(true);
    }
  });

  it('leaves example env files and ordinary sources alone', () => {
    for (const p of [
      '.env.example',
      'config/.env.sample',
      'src/env.ts',
      'src/keyboard.ts',
      'docs/credentials.md',
      'environment.py',
    ]) {
      expect(isSecretPath(p), p).toBe(false);
    }
  });
});

describe('redactSecrets', () => {
  it('replaces API keys by kind and counts them', () => {
    const text = [
      'const openai = "sk-proj-Abcdefghijklmnopqrstuvwx1234567890";',
      'const aws = "AKIAIOSFODNN7EXAMPLE"; const aws2 = "AKIAIOSFODNN7EXAMPL2";',
      'token: ghp_0123456789abcdefghijABCDEFGHIJ012345',
    ].join('\n');
    const r = redactSecrets(text);
    expect(r.text).toBe(
      [
        'const openai = "[REDACTED:openai_key]";',
        'const aws = "[REDACTED:aws_access_key]"; const aws2 = "[REDACTED:aws_access_key]";',
        'token: [REDACTED:github_token]',
      ].join('\n'),
    );
    expect(r.redactions).toEqual([
      { kind: 'aws_access_key', count: 2 },
      { kind: 'github_token', count: 1 },
      { kind: 'openai_key', count: 1 },
    ]);
  });

  it('replaces a private key block and keeps the line count', () => {
    const text = 'before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----\nafter\n';
    const r = redactSecrets(text);
    expect(r.text.split('\n')).toHaveLength(text.split('\n').length);
    expect(r.text).not.toContain('MIIEow');
    expect(r.text.split('\n')[5]).toBe('after');
    expect(r.redactions).toEqual([{ kind: 'private_key', count: 1 }]);
  });

  it('does not touch look-alikes in ordinary code', () => {
    const text = 'const task = "sk-learn-style-hyphenated-words-here";\nconst name = "AKIA";\nskip_this_function()\n';
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });
});

describe('redactSecrets: the gaps a model provider must never see', () => {
  const cases: [string, string, string][] = [
    [
      'an AWS secret key next to its key id',
      'aws_access_key_id = AKIAZ7Q4VJ3KX2M5N8PD\naws_secret_access_key = kT9vQ2mZ7xR4bN8pL3wY6cH1jF5dS0gA2eU7iO9q\n',
      'kT9vQ2mZ7xR4bN8pL3wY6cH1jF5dS0gA2eU7iO9q',
    ],
    [
      'an AWS key pair in a CSV export',
      'AKIAZ7Q4VJ3KX2M5N8PD,Vb4+Xz8/Qm2Lp7Rt9Ws3Yn6Hk1Jd5Fg0Ca2Eu7Io\n',
      'Vb4+Xz8/Qm2Lp7Rt9Ws3Yn6Hk1Jd5Fg0Ca2Eu7Io',
    ],
    [
      'an npm token',
      '//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n',
      'npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
    ],
    [
      'a password in a postgres URL',
      'DATABASE_URL: "postgres://app:Hunter2Secret@db.internal:5432/app"\n',
      'Hunter2Secret',
    ],
    ['a password in a git remote', 'url = https://bot:s3cr3tP4ss@github.com/org/repo.git\n', 's3cr3tP4ss'],
    [
      'a SendGrid key',
      'sendgrid.setApiKey("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");\n',
      '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',
    ],
    [
      'a high-entropy value assigned to a secret name',
      'const clientSecret = "q8Zr2Lk9Xv4Tn7Bw3Hy6Jm1Pd5";\n',
      'q8Zr2Lk9Xv4Tn7Bw3Hy6Jm1Pd5',
    ],
    ['a token in a dotenv-style line', 'export API_TOKEN=Zx81Qw94Er27Ty63Ui05\n', 'Zx81Qw94Er27Ty63Ui05'],
    ['a password in YAML', 'db:\n  password: Vq3!xR8#mK2@pL7z\n', 'Vq3!xR8#mK2@pL7z'],
    [
      'a Stripe key found by the vendored gitleaks rules',
      'stripe = "sk_test_51H8aBcDeFgHiJkLmN0pQrStUv"\n',
      'sk_test_51H8aBcDeFgHiJkLmN0pQrStUv',
    ],
  ];
  it.each(cases)('%s', (_label, text, secret) => {
    const r = redactSecrets(text);
    expect(r.text).not.toContain(secret);
    expect(r.text).toContain('[REDACTED:');
    expect(r.text.split('\n')).toHaveLength(text.split('\n').length);
  });

  it('names the kind of each finding', () => {
    const r = redactSecrets('a = "postgres://u:Pa55word9@h/db"\nb = npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n');
    expect(r.redactions).toEqual([
      { kind: 'npm_token', count: 1 },
      { kind: 'url_password', count: 1 },
    ]);
    expect(r.text).toBe('a = "postgres://u:[REDACTED:url_password]@h/db"\nb = [REDACTED:npm_token]\n');
  });

  it('leaves code, placeholders and low-entropy values alone', () => {
    const text = [
      'const token = nextToken2();',
      'previousToken: previousToken2,',
      'password = "${DB_PASSWORD}"',
      'url = "postgres://user:${PASSWORD}@localhost/db"',
      'const secretKeyName = "API_SECRET";',
      'keyboardLayout = "qwerty123456789"',
      'import { tokenize } from "./tokenize.js";',
    ].join('\n');
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });
});
