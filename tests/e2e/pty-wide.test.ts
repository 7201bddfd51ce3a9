import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies, type RecordedRequest } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// A wide change in a terminal, as a person runs it: the footprint and estimate first, a yes before
// any plan request, then, when one shard fails, a choice to write the shards that planned, the
// changes by folder, and one review of the merged plan.

const files: Record<string, string> = {};
for (let i = 0; i < 10; i++) {
  files[`${i < 5 ? 'lib' : 'src'}/m${i}.js`] =
    `const fs = require('fs');\n${Array.from({ length: 12 }, (_, j) => `// module ${i}, note ${j}: keep this line\n`).join('')}`;
}
const pty = useCliInPty({ prefix: 'clawcode-pty-wide-', files, rows: 50 });

const shown = (r: RecordedRequest): string[] =>
  [...String(r.body.messages[1].content).matchAll(/^## (\S+)/gm)].map((m) => m[1]!);

describe('a wide change in a terminal (built CLI)', () => {
  it(
    'asks before sending, offers to write the shards that planned when one fails, and reviews the merged plan once',
    { timeout: 90_000 },
    async () => {
      pty.server.setFallback((request) => {
        const paths = shown(request);
        if (paths.includes('src/m9.js')) return replies.status(400, 'Refused by the test.');
        const patches = paths.map((file) => ({
          file,
          operation: 'replace',
          find: "require('fs')",
          replace: "require('node:fs')",
          replace_all: null,
          occurrence: null,
        }));
        return replies.plan({ analysis: 'node: prefix', files_to_edit: [], patches, commands: [], agent_notes: [] });
      });
      const s = pty.start([
        'use the node: prefix',
        '--dir',
        pty.project,
        '--provider',
        'openai',
        '--files',
        'lib',
        'src',
        '--budget',
        '2500',
      ]);
      await s.waitFor(/Footprint: 10 files, \d+ shards/);
      expect(pty.server.requests).toHaveLength(0);
      await s.answer(/Send \d+ plan requests\?/, 'y');
      s.write('\r');
      await s.answer(/1 of \d+ shards failed\. Review and write the \d+ that planned\?/, 'y');
      s.write('\r');
      await s.waitFor('Changes by folder:');
      await s.waitFor(/lib\/\s+5 files\s+\+5 −5/);
      await s.answer(/Apply these changes to \d+ files\?/, 'y');
      s.write('\r');
      await s.waitFor('What next?');
      s.write('\r');
      expect(await s.exitCode()).toBe(0);
      const failedShard = pty.server
        .completions()
        .map(shown)
        .find((p) => p.includes('src/m9.js'))!;
      for (const [path, text] of Object.entries(files)) {
        const want = failedShard.includes(path) ? text : text.replace("require('fs')", "require('node:fs')");
        expect(await readFile(join(pty.project, path), 'utf8'), path).toBe(want);
      }
    },
  );
});
