import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  COLON_COMMANDS,
  colonHelpLines,
  runColonCommand,
  type ColonHandlers,
  type ColonIo,
} from '../../../cli/interactive/colon-commands.js';
import { ConfigError } from '../../../utils/errors.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'clawcode-colon-'));
});

/** Run `line` with `handlers`; the lines said and the errors shown, and the state after. */
async function run(line: string, handlers: ColonHandlers, pick?: ColonIo['pick']) {
  const said: string[] = [];
  const errors: string[] = [];
  const state = { rootDir: root };
  const outcome = await runColonCommand(line, state, handlers, {
    say: (t) => said.push(t),
    error: (t) => errors.push(t),
    ...(pick ? { pick } : {}),
  });
  return { outcome, said, errors, state };
}

describe('runColonCommand', () => {
  it(':help lists every command, one per line, each fitting an 80-column feed', async () => {
    const { said } = await run(':help', {});
    for (const c of COLON_COMMANDS) expect(said.join('\n')).toContain(c.usage);
    expect(colonHelpLines()).toHaveLength(COLON_COMMANDS.length);
    for (const line of colonHelpLines()) expect(line.length).toBeLessThanOrEqual(72);
  });

  it(':exit, :quit and :q leave; an unknown command is named and not run', async () => {
    for (const line of [':exit', ':quit', ':q']) expect((await run(line, {})).outcome).toBe('exit');
    const { outcome, errors } = await run(':udno', { undo: async () => 'undone' });
    expect(outcome).toBe('done');
    expect(errors).toEqual(['Unknown command :udno (not sent to the model). Type :help for the list.']);
  });

  it(':project <path> checks the folder, moves the state and tells the handler', async () => {
    await mkdir(join(root, 'sub'));
    const moved: string[] = [];
    const handlers = { switchProject: async (dir: string) => void moved.push(dir) };
    expect((await run(':project nope', handlers)).errors).toEqual(['nope does not exist']);
    const { state, said } = await run(':project sub', handlers);
    expect(state.rootDir).toBe(join(root, 'sub'));
    expect(moved).toEqual([join(root, 'sub')]);
    expect(said).toEqual([`Project: ${join(root, 'sub')}`]);
  });

  it(':model offers the listed models where a list can be shown, and wants an id where it cannot', async () => {
    const switched: string[] = [];
    const handlers: ColonHandlers = {
      switchModel: async (id) => void switched.push(id),
      modelChoices: async () => ['small', 'large'],
    };
    expect((await run(':model', handlers)).said).toEqual(['Usage: :model <id>']);
    const offered: string[][] = [];
    const picked = await run(':model', handlers, async (_m, choices) => {
      offered.push(choices.map((c) => c.value));
      return 'large';
    });
    expect(offered).toEqual([['small', 'large']]);
    expect(picked.said).toEqual(['Model: large']);
    expect((await run(':model', handlers, async () => undefined)).said).toEqual(['Model unchanged.']);
    await run(':model tiny', handlers);
    expect(switched).toEqual(['large', 'tiny']);
    const none = await run(':model', { ...handlers, modelChoices: async () => undefined }, async () => 'x');
    expect(none.said).toEqual(['Usage: :model <id> (this provider lists no models)']);
  });

  it(':provider picks among the configured providers; a failing switch shows its message and hint', async () => {
    const handlers: ColonHandlers = {
      providerChoices: async () => [
        { name: 'openai · gpt-4o-mini', value: 'openai' },
        { name: 'local · qwen', value: 'local' },
      ],
      switchProvider: async (name) => {
        if (name === 'local')
          throw new ConfigError('Provider "local" is not configured.', { hint: 'Run clawcode config.' });
        return `${name} · m`;
      },
    };
    expect((await run(':provider', handlers, async () => 'openai')).said).toEqual(['Provider: openai · m']);
    const failed = await run(':provider', handlers, async () => 'local');
    expect(failed.errors).toEqual(['Provider "local" is not configured.']);
    expect(failed.said).toEqual(['  Run clawcode config.']);
  });

  it('a command whose handler is absent says so', async () => {
    expect((await run(':undo', {})).said).toEqual(['Undo is not available here.']);
    expect((await run(':model x', {})).said).toEqual(['Switching models is not available here.']);
    expect((await run(':files', {})).said).toEqual(['Pinning files is not available here.']);
  });
});
