import { Box, Text } from 'ink';

/** Block letters, 5 rows; each letter is a 5-row glyph (width 4 or 5), joined with one space. */
const GLYPHS: Record<string, string[]> = {
  C: [' ███', '█   ', '█   ', '█   ', ' ███'],
  L: ['█   ', '█   ', '█   ', '█   ', '████'],
  A: [' ██ ', '█  █', '████', '█  █', '█  █'],
  W: ['█   █', '█   █', '█ █ █', '██ ██', '█   █'],
  O: [' ██ ', '█  █', '█  █', '█  █', ' ██ '],
  D: ['███ ', '█  █', '█  █', '█  █', '███ '],
  E: ['████', '█   ', '███ ', '█   ', '████'],
};

/** The ASCII CLAWCODE banner, 5 rows and 40 columns wide. */
export const LOGO_LINES: readonly string[] = [0, 1, 2, 3, 4].map((row) =>
  [...'CLAWCODE']
    .map((ch) => GLYPHS[ch]![row])
    .join(' ')
    .trimEnd(),
);

/** Width of the banner in columns; narrower terminals get the one-word logo. */
export const LOGO_WIDTH = Math.max(...LOGO_LINES.map((l) => l.length));

/** The banner; a single bold "CLAWCODE" when `columns` is narrower than the art. */
export function Logo({ columns }: { columns: number }) {
  if (columns < LOGO_WIDTH + 2) {
    return (
      <Text bold color="cyan">
        CLAWCODE
      </Text>
    );
  }
  return (
    <Box flexDirection="column">
      {LOGO_LINES.map((line, i) => (
        <Text key={i} color="cyan">
          {line}
        </Text>
      ))}
    </Box>
  );
}
