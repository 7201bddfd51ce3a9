import { describe, expect, it } from 'vitest';
import { commandEnv } from '../../../utils/shell/command-env.js';
import { runCommand } from '../../../utils/shell/run.js';

const person: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/p',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  CI: 'true',
  NODE_ENV: 'test',
  GOPATH: '/home/p/go',
  npm_config_registry: 'https://registry.npmjs.org/',
  npm_config__authToken: 'npm_secret',
  OPENAI_API_KEY: 'sk-x',
  ANTHROPIC_API_KEY: 'sk-ant-x',
  CLAWCODE_HOME: '/home/p/.clawcode',
  AWS_ACCESS_KEY_ID: 'AKIA',
  AWS_SECRET_ACCESS_KEY: 'x',
  GOOGLE_APPLICATION_CREDENTIALS: '/home/p/key.json',
  GITHUB_TOKEN: 'ghp_x',
  SSH_AUTH_SOCK: '/run/user/1/ssh',
  DATABASE_URL: 'postgres://u:p@db/x',
  GOPROXY: 'https://u:p@proxy.example',
  HTTPS_PROXY: 'http://proxy:3128',
  MY_THING: 'x',
};

describe('commandEnv', () => {
  it('passes what builds need and nothing else: no keys, tokens, cloud credentials, agent sockets or URL passwords', () => {
    const passed = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'CI', 'NODE_ENV', 'GOPATH', 'npm_config_registry'];
    expect(commandEnv(person, false)).toEqual(Object.fromEntries(passed.map((k) => [k, person[k]])));
    expect(commandEnv(person, true)).toMatchObject({ HTTPS_PROXY: 'http://proxy:3128' });
    expect(commandEnv({ ...person, HTTPS_PROXY: 'http://u:p@proxy:3128' }, true)).not.toHaveProperty('HTTPS_PROXY');
  });

  it('is what a command sees, with or without the sandbox', async () => {
    const result = await runCommand('env', { cwd: '/', env: person });
    expect(result.stdout).not.toMatch(/sk-|AKIA|ghp_|npm_secret|ssh|:p@/);
    expect(result.stdout).toContain('CI=true');
  });
});
