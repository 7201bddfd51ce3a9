import { basename } from 'node:path';
import { Box, Text } from 'ink';

/** What the header shows; `branch` is undefined outside a git repository. */
export interface HeaderProps {
  provider: string;
  model: string;
  rootDir: string;
  branch?: string;
}

/** One line: provider · model, project folder name, git branch; truncated to the terminal width. */
export function Header({ provider, model, rootDir, branch }: HeaderProps) {
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text bold>{provider}</Text>
        <Text dimColor> · </Text>
        <Text>{model}</Text>
        <Text dimColor> │ </Text>
        <Text color="yellow">{basename(rootDir) || rootDir}</Text>
        {branch ? (
          <>
            <Text dimColor> │ </Text>
            <Text color="magenta">⎇ {branch}</Text>
          </>
        ) : null}
      </Text>
    </Box>
  );
}
