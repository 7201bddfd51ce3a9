import { describe, expect, it } from 'vitest';
import { isSecretPath, redactSecrets } from '../../utils/secrets.js';

describe('isSecretPath', () => {
  it('flags env files, keys, certificates and credential files', () => {
    for (const p of ['.env', 'app/.env.local', '.env.production', 'deploy/server.key', 'tls/cert.pem', '.ssh/id_ed25519', 'id_rsa.pub', 'home/.aws/config', 'credentials', 'gcp/service-account.json', '.npmrc', 'infra/terraform.tfstate']) {
      expect(isSecretPath(p), p).toBe(true);
    }
  });

  it('leaves example env files and ordinary sources alone', () => {
    for (const p of ['.env.example', 'config/.env.sample', 'src/env.ts', 'src/keyboard.ts', 'docs/credentials.md', 'environment.py']) {
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
    expect(r.text).toBe([
      'const openai = "[REDACTED:openai_key]";',
      'const aws = "[REDACTED:aws_access_key]"; const aws2 = "[REDACTED:aws_access_key]";',
      'token: [REDACTED:github_token]',
    ].join('\n'));
    expect(r.redactions).toEqual([{ kind: 'aws_access_key', count: 2 }, { kind: 'github_token', count: 1 }, { kind: 'openai_key', count: 1 }]);
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
