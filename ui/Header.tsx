import { basename } from 'node:path';
import { Box, Text } from 'ink';
import { escapeTerminal } from '../utils/terminal-text.js';

/** What the header shows; `branch` is undefined outside a git repository. */
export interface HeaderProps {
  provider: string;
  model: string;
  rootDir: string;
  branch?: string;
}

/**
 * One line: provider · model, project folder name, git branch; truncated to the terminal width. Each field is
 * shown escaped: a branch name comes with the repository (git allows bidi and C1 controls in one), the folder
 * name with the tree, a model name from the provider's list.
 */
export function Header({ provider, model, rootDir, branch }: HeaderProps) {
  const shown = (text: string): string => escapeTerminal(text, 'line');
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text bold>{shown(provider)}</Text>
        <Text dimColor> · </Text>
        <Text>{shown(model)}</Text>
        <Text dimColor> │ </Text>
        <Text color="yellow">{shown(basename(rootDir) || rootDir)}</Text>
        {branch ? (
          <>
            <Text dimColor> │ </Text>
            <Text color="magenta">⎇ {shown(branch)}</Text>
          </>
        ) : null}
      </Text>
    </Box>
  );
}
