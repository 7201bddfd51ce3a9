import { describe, expect, it } from 'vitest';
import { heldSecrets, OutboundRefusedError, sealRequest } from '../../llm/outbound.js';
import { buildSystemPrompt } from '../../llm/prompts.js';
import { buildScopeSystemPrompt } from '../../agent/wide/scope-request.js';

describe('sealRequest: the one door out', () => {
  it('redacts secrets anywhere in the body, the task and instructions included', () => {
    const sealed = sealRequest({
      system: 'You are clawcode.',
      user: '# Task\nrotate sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z\n\n# Project instructions\npassword: "Xk9#mQ2$vL&p(7);!zR"\n',
    });
    expect(sealed.user).toBe(
      '# Task\nrotate [REDACTED:openai_key]\n\n# Project instructions\npassword: "[REDACTED:secret_assignment]"\n',
    );
    expect(sealed.redactions).toEqual([
      { kind: 'openai_key', count: 1 },
      { kind: 'secret_assignment', count: 1 },
    ]);
  });

  it("leaves clawcode's own prompts exactly as they are", () => {
    for (const system of [buildSystemPrompt(), buildScopeSystemPrompt()])
      expect(sealRequest({ system, user: '' })).toEqual({ system, user: '', redactions: [] });
  });

  it.each([
    ['.env', 'secret file'],
    ['deploy/.aws/credentials', 'secret file'],
    ['.git/config', '.git/'],
    ['../outside.txt', 'outside'],
    ['/etc/passwd', 'absolute'],
    ['img/logo.png', 'binary'],
  ])('refuses a body that quotes %s, whatever else it holds', (file) => {
    expect(() => sealRequest({ system: '', user: `## ${file}\ntext`, files: [file] })).toThrow(OutboundRefusedError);
  });

  it('refuses a quoted file the context stage may not send (ignored, skipped)', () => {
    const sendable = (path: string) => path === 'src/a.ts';
    expect(sealRequest({ system: '', user: 'x', files: ['src/a.ts'] }, sendable).user).toBe('x');
    expect(() => sealRequest({ system: '', user: 'x', files: ['deploy/prod.sh'] }, sendable)).toThrow(
      /not among the files the context stage may send/,
    );
  });
});

describe('heldSecrets: the credentials clawcode holds never leave, whatever their shape', () => {
  const env = {
    OPENAI_API_KEY: 'sk-gateway-7f3a',
    DEPLOY_HOOK_TOKEN: 'plainTok3nValue2024',
    DB_PASSWORD: 'postgres',
    SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
    GIT_ASKPASS: '/usr/lib/git-core/askpass',
    PWD: '/home/user/project1',
    HOME: '/home/user',
    PATH: '/usr/bin:/bin',
    PROXY_AUTH_URL: 'https://proxy.example.com:8080',
  };

  it('are the provider key and the credential-named variables that look like one, longest first', () => {
    expect(heldSecrets('my-own-gateway-key-2', env)).toEqual([
      'my-own-gateway-key-2',
      'plainTok3nValue2024',
      'sk-gateway-7f3a',
    ]);
    expect(heldSecrets(undefined, { DB_PASSWORD: 'postgres', NODE_ENV: 'production2024' })).toEqual([]);
  });

  it('are replaced at the door wherever the body quotes them', () => {
    const held = heldSecrets(undefined, env);
    const sealed = sealRequest(
      { system: '', user: 'curl -H "X: sk-gateway-7f3a" -d plainTok3nValue2024 postgres' },
      undefined,
      held,
    );
    expect(sealed.user).toBe('curl -H "X: [REDACTED:held_secret]" -d [REDACTED:held_secret] postgres');
    expect(sealed.redactions).toEqual([{ kind: 'held_secret', count: 2 }]);
  });
});
