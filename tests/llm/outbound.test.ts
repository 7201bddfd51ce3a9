import { describe, expect, it } from 'vitest';
import { OutboundRefusedError, sealRequest } from '../../llm/outbound.js';
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
