import { generateKeyPairSync, randomBytes, type KeyExportOptions, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../utils/policy/secrets.js';
import { isSecretPath } from '../../../utils/policy/paths.js';

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
      'deploy/production.env',
      'app.prod.env',
      'credentials.csv',
      'exports/ci-bot_accessKeys.csv',
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
      'deploy/example.env',
      'prod.sample.env',
      'src/env.d.ts',
      'data/keys.csv',
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

describe('redactSecrets: by rule, not by case', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ed = generateKeyPairSync('ed25519');
  const der = (key: KeyObject, type: string): string =>
    key.export({ format: 'der', type } as KeyExportOptions<'der'>).toString('base64');
  const pem = (key: KeyObject, type: string): string =>
    key.export({ format: 'pem', type } as KeyExportOptions<'pem'>).toString();
  // An X.509 certificate opens SEQUENCE { SEQUENCE (tbsCertificate) { [0] version … } }: public, never redacted.
  const certificate = Buffer.concat([Buffer.from('3082030a308201f2a003020102', 'hex'), randomBytes(300)]);
  const pemKey = pem(rsa.privateKey, 'pkcs1');
  const yamlBlock = der(rsa.privateKey, 'pkcs8').match(/.{1,64}/g)!;

  const redacted: [label: string, text: string, secret: string, kind: string][] = [
    ['PKCS#8 RSA key as one line', `private_key: ${der(rsa.privateKey, 'pkcs8')}\n`, 'MIIE', 'private_key'],
    ['PKCS#1 RSA key', `k = "${der(rsa.privateKey, 'pkcs1')}"\n`, der(rsa.privateKey, 'pkcs1'), 'private_key'],
    ['SEC1 EC key under any name', `blob: ${der(ec.privateKey, 'sec1')}\n`, der(ec.privateKey, 'sec1'), 'private_key'],
    ['PKCS#8 Ed25519 key in JSON', `{"k": "${der(ed.privateKey, 'pkcs8')}"}\n`, 'MC4CAQAw', 'private_key'],
    [
      'kubeconfig client-key-data (a PEM key, base64 once more)',
      `    client-key-data: ${Buffer.from(pemKey).toString('base64')}\n`,
      Buffer.from(pemKey).toString('base64').slice(0, 60),
      'private_key',
    ],
    ['a key as a YAML block of base64 lines', `key: |\n  ${yamlBlock.join('\n  ')}\n`, yamlBlock[5]!, 'private_key'],
    ['a password with $&();!#', 'password: "Xk9#mQ2$vL&p(7);!zR"\n', 'Xk9#mQ2$vL&p(7);!zR', 'secret_assignment'],
    [
      'Django SECRET_KEY',
      "SECRET_KEY = 'django-insecure-7x$k2&f!q9(z)m#w8^e3r@t5y*u1i0o-p=a+s_d'\n",
      'django-insecure-7x$k2',
      'secret_assignment',
    ],
    [
      'a value over 200 characters',
      `api_token = "${'aB3dE6gH9jK2mN5p'.repeat(20)}"\n`,
      'aB3dE6gH9jK2mN5p',
      'secret_assignment',
    ],
    [
      '.NET connection string',
      '"Default": "Server=tcp:db.example.com,1433;Database=app;User ID=admin;Password=Qz7!x#Lp2$w9&Rk;"\n',
      'Qz7!x#Lp2$w9&Rk',
      'connection_string_password',
    ],
    ['ODBC connection string, weak password', 'DSN=mydsn;UID=scott;PWD=tiger\n', 'tiger', 'connection_string_password'],
    [
      'JDBC URL query',
      'url=jdbc:mysql://db:3306/app?user=root&password=s3cr3tPw\n',
      's3cr3tPw',
      'connection_string_password',
    ],
    [
      'Authorization: Basic',
      'curl -H "Authorization: Basic YWRtaW46UzNjcjN0LVA0c3Mh" https://x\n',
      'YWRtaW46UzNjcjN0LVA0c3Mh',
      'basic_auth',
    ],
    [
      'a bearer token',
      'Authorization: Bearer 9fK2xQ7mZ4pL8vN1cR6tW3yB5hJ0sD\n',
      '9fK2xQ7mZ4pL8vN1cR6tW3yB5hJ0sD',
      'bearer_token',
    ],
    [
      'a token as the whole user part of a URL',
      'git clone https://a3f9c2e1b7d4058e6f1a2b3c4d5e6f7a8b9c0d1e@github.com/o/r.git\n',
      'a3f9c2e1b7d4058e6f1a2b3c4d5e6f7a8b9c0d1e',
      'url_token',
    ],
    [
      'a URL password with no user',
      'https://:Zq8vN2xLp4Rt7Yw3Kd9F@gitlab.example.com/o/r\n',
      'Zq8vN2xLp4',
      'url_password',
    ],
    [
      'a credential in a URL query',
      'fetch("https://api.example.com/v1?api_key=Mv3xK8pQ2zL7wR4tY9nB&limit=10")\n',
      'Mv3xK8pQ2zL7wR4tY9nB',
      'url_query_credential',
    ],
    [
      'a header with a hyphenated credential name in a command',
      'curl -H "X-Api-Key: Hd6sJ1fG8kL3zX5cV7bN" https://x\n',
      'Hd6sJ1fG8kL3zX5cV7bN',
      'header_credential',
    ],
    [
      'Authorization with a token scheme',
      'Authorization: token Hd6sJ1fG8kL3zX5cV7bN\n',
      'Hd6sJ1fG8k',
      'header_credential',
    ],
    ['a long option', 'vault login --token Pw4eR7tY2uI9oA3sD6fG\n', 'Pw4eR7tY2uI9oA3sD6fG', 'option_credential'],
    ['an environment prefix', 'PGPASSWORD=Qa2wS5eD8rF1tG4yH7uJ psql -h db\n', 'Qa2wS5eD8r', 'secret_assignment'],
    ['a PHP constant', "define( 'DB_PASSWORD', 'Ty3uI6oP9aS2dF5gH8jK' );\n", 'Ty3uI6oP9a', 'secret_assignment'],
    ['a getenv default', 'key = os.getenv("API_KEY", "Ty3uI6oP9aS2dF5gH8jK")\n', 'Ty3uI6oP9a', 'secret_assignment'],
    [
      'a Kubernetes env list',
      'env:\n  - name: DB_PASSWORD\n    value: Rk5tN8vB2xC7mZ4qW1eY\n',
      'Rk5tN8vB2x',
      'secret_assignment',
    ],
    ['.NET appSettings', '<add key="ApiKey" value="Lz4xC7vB1nM5qW8eR2tY" />\n', 'Lz4xC7vB1n', 'secret_assignment'],
    ['an XML element', '<password>Lz4xC7vB1nM5qW8eR2tY</password>\n', 'Lz4xC7vB1n', 'secret_assignment'],
    [
      'a YAML value on the next line',
      'db:\n  password: >-\n    Lz4xC7vB1nM5qW8eR2tY\n',
      'Lz4xC7vB1n',
      'secret_assignment',
    ],
    [
      'a fallback literal',
      "const secret = process.env.S || 'Gh7jK1lZ4xC8vB2nM5qW';\n",
      'Gh7jK1lZ4x',
      'secret_assignment',
    ],
  ];
  it.each(redacted)('%s', (_label, text, secret, kind) => {
    const r = redactSecrets(text);
    expect(r.text).not.toContain(secret);
    expect(r.redactions.map((x) => x.kind)).toContain(kind);
    expect(r.text.split('\n')).toHaveLength(text.split('\n').length);
  });

  it('leaves public key material, certificates, code and placeholders alone', () => {
    const text = [
      `client-certificate-data: ${Buffer.from(`-----BEGIN CERTIFICATE-----\n${certificate.toString('base64')}\n`).toString('base64')}`,
      `certificate: ${certificate.toString('base64')}`,
      `publicKey: ${der(rsa.publicKey, 'spki')}`,
      `public_key_b64: ${Buffer.from(pem(rsa.publicKey, 'spki')).toString('base64')}`,
      'key := sha256.Sum256(content)',
      '    key = list(constraints)[0]',
      '    password = password.encode("latin1")',
      '    "@babel/plugin-proposal-private-property-in-object": "npm:7.21.0-placeholder-for-preset-env.2",',
      "    .send('username=tj&password=foobar')",
      '  string cs = $"server=db;user=root;database=example;password={password}";',
      '  token_endpoint: "https://oauth2.googleapis.com/token2"',
      '  const header = `Bearer ${accessToken}`;',
      '  "Authorization": "Basic " + btoa(user + ":" + pass),',
      "  headers: { 'x-api-key': apiKeyFromEnv2 },",
      '  git clone https://git@github.com/o/r.git https://deploy-bot@example.com/r',
      '  run --password-file /run/secrets/db_pass2 --token "$TOKEN"',
      '  TOKEN_COUNT=tokenizer2 node x.js',
      '  url = `https://api.example.com/v1?api_key=${apiKey}&page=2`',
      '  ("a_new_key", "192.168.0.0/24,127.0.0.1,localhost.localdomain"),',
      'api_key:',
      '  type: string2xyzABC',
      '  }, Key extends keyof X>(res: Json7Type, key: Key, value: Json7TypeUnion[T], refs: Refs)',
    ].join('\n');
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });

  it('a file holding one value under a credential name is that value assigned to the name', () => {
    expect(redactSecrets('hvs.Zq8vN2xLp4Rt7Yw3Kd9FbQ\n', '.vault-token').text).toBe('[REDACTED:secret_assignment]\n');
    expect(redactSecrets('Xk29fLq8Zp3rTv7W\n', 'secrets/db_password.txt').text).toBe('[REDACTED:secret_assignment]\n');
    // Not a credential's name, or more than one value, or no path given: left to the other rules.
    expect(redactSecrets('v20.11.1\n', '.nvmrc').redactions).toEqual([]);
    expect(redactSecrets('Xk29fLq8Zp3rTv7W\n', 'VERSION').redactions).toEqual([]);
    expect(redactSecrets('Xk29fLq8Zp3rTv7W other\n', 'token.txt').redactions).toEqual([]);
    expect(redactSecrets('Xk29fLq8Zp3rTv7W\n').redactions).toEqual([]);
    // Minified code or data on one line is not a value.
    expect(
      redactSecrets('{"version":3,"file":"credentials.js","mappings":"AAAA2Xq"}', 'credentials.js.map').redactions,
    ).toEqual([]);
  });

  it('redacting twice changes nothing more (markers are never findings)', () => {
    const once = redactSecrets(redacted.map(([, text]) => text).join('')).text;
    expect(redactSecrets(once)).toEqual({ text: once, redactions: [] });
  });
});
