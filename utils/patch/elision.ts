/**
 * The elision pass: a `find` with `...` marker lines ("something is left out here") is split into segments
 * that anchor the span at both ends (after Aider's `try_dotdotdots`).
 *
 * Anchors are often common lines (`}`, a closing docstring), so several placements ("readings") can fit.
 * Every placement counts as a location, and several are refused as ambiguous, never settled by similarity.
 * The one exception is narrow and needs evidence from the replacement (see `settleReading`): one piece is
 * unique and long, the other sits at its nearest copy, and the replacement shows that its author saw exactly
 * that span (it keeps or edits a line of the elided text, and none of the text a farther copy would add).
 */
import type { PassOutcome } from './match.js';
import { renderCandidate } from './render.js';
import {
  framedReplace,
  isInformative,
  MAX_SIMILAR_PAIRS,
  overlapsCopy,
  readsAsReplace,
  settleNearest,
} from './elision-evidence.js';
import { similarLines } from './steps.js';
import {
  type Candidate,
  contentKey,
  foldedKey,
  lineKeys,
  nonWsLength,
  SHORT_FIND_CHARS,
  spanCandidate,
  type TextModel,
} from './text.js';

/**
 * A line that only says "something was left out here": `...` or `…`, optionally inside a line comment
 * or block comment, optionally with a few words (`// ... existing code ...`).
 */
const MARKER = /^(?:\/\/|#|--|;|\/\*|<!--)?\s*(?:\.\.\.|…)(?:[ \w,'-]{0,40}(?:\.\.\.|…))?\s*(?:\*\/|-->)?$/;

/** Whether a line is an elision marker. */
function isElisionMarker(line: string): boolean {
  return MARKER.test(line.trim());
}

interface Segment {
  /** Lines of find in this segment, blank lines at its edges removed. */
  lines: string[];
}

/**
 * Locate a find with marker lines. Returns `undefined` when find has no marker; a refusal when the markers
 * cannot anchor a span (a segment at an end is empty) or replace has markers that do not pair up.
 */
export function locateElision(
  model: TextModel,
  findLines: readonly string[],
  replLines: readonly string[],
): PassOutcome | undefined {
  const segments = splitSegments(findLines);
  if (!segments) return undefined;
  const replMarkers = replLines.filter(isElisionMarker).length;
  if (segments.some((s) => s.lines.length === 0)) {
    return {
      strategy: 'elision',
      refusal: {
        code: 'patch_elision_unanchored',
        message: 'find uses "..." but does not quote file lines both before and after every "..."',
      },
    };
  }
  const findMarkers = findLines.filter(isElisionMarker);
  const replMarkerLines = replLines.filter(isElisionMarker);
  // Markers in replace mean "keep the elided text" only when they repeat find's marker lines exactly;
  // otherwise a `...` in replace may be literal code (a Python stub, a docstring example).
  if (
    replMarkers !== 0 &&
    (replMarkers !== findMarkers.length || replMarkerLines.some((l, i) => l !== findMarkers[i]))
  ) {
    return {
      strategy: 'elision',
      refusal: {
        code: 'patch_elision_unpaired',
        message: `find has ${findMarkers.length} "..." line(s) and replace has ${replMarkers} that do not repeat them; use the same marker lines, or none`,
      },
    };
  }
  const keep = replMarkers > 0;
  const occurrences = segments.map((s) => segmentOccurrences(model, s.lines));
  // A short piece (`}`, `return x`) that occurs more than once anchors nothing by itself: a drifted piece would
  // land on another copy of it. Longer pieces may repeat as long as the placement of all pieces together is
  // unique. Either way, several placements are settled only by the evidence rule of `settleReading`.
  const weak = segments.findIndex(
    (seg, k) => occurrences[k]!.length > 1 && nonWsLength(seg.lines.join('')) < SHORT_FIND_CHARS,
  );
  const all = weak >= 0 ? undefined : enumerateReadings(model, segments, occurrences);
  const settled =
    !all || all.readings.length > 1
      ? (settleReading(model, segments, occurrences, replLines, keep) ??
        (keep || segments.length !== 2
          ? undefined
          : settleNearest(model, segments[0]!.lines, segments[1]!.lines, occurrences, replLines)))
      : undefined;
  if (!settled && weak >= 0) {
    const spans = occurrences[weak]!.slice(0, 20).map((i) =>
      spanCandidate(model, i, i + segments[weak]!.lines.length - 1, ''),
    );
    return { strategy: 'elision', candidates: spans, truncated: occurrences[weak]!.length > 20 };
  }
  const { readings, truncated } = settled ? { readings: [settled], truncated: false } : all!;
  // Without markers, replace stands for the whole span, the elided text included. A replace that writes
  // nothing between the pieces deletes text the find never quoted: more likely markers left out of replace
  // (Aider refuses such an unpaired "..." too).
  if (!keep && readings.length === 1 && deletesElided(model, segments, readings[0]!, replLines)) {
    return {
      strategy: 'elision',
      refusal: {
        code: 'patch_elision_unpaired',
        message: 'find has "..." lines and replace has none, and replace keeps none of the lines they stand for',
      },
    };
  }
  const candidates: Candidate[] = readings.map((starts) => {
    const first = starts[0]!;
    const lastSeg = segments.length - 1;
    const last = starts[lastSeg]! + segments[lastSeg]!.lines.length - 1;
    // Several placements are refused as ambiguous: only their lines are reported, nothing is rendered.
    if (readings.length > 1) return spanCandidate(model, first, last, '');
    // Find as the model meant it: its segment lines, and the file's own lines where it wrote "...".
    const meant = model.lines.slice(first, last + 1);
    segments.forEach((seg, k) => seg.lines.forEach((line, j) => (meant[starts[k]! - first + j] = line)));
    const text = renderReplacement(model, segments, starts, replLines, keep);
    const map = meant.map((_, j) => first + j);
    return renderCandidate(model, meant, text === '' ? [] : text.split('\n'), { first, last, map });
  });
  if (candidates.length === 0) return undefined;
  // Several placements are several locations: refused as ambiguous, never settled by similarity.
  return { strategy: 'elision', candidates, truncated };
}

/** Readings beyond this many are neither listed nor scored (the find is ambiguous anyway). */
const MAX_READINGS = 500;

function splitSegments(findLines: readonly string[]): Segment[] | undefined {
  const segments: Segment[] = [{ lines: [] }];
  let markers = 0;
  for (const line of findLines) {
    if (isElisionMarker(line)) {
      markers++;
      segments.push({ lines: [] });
    } else {
      segments[segments.length - 1]!.lines.push(line);
    }
  }
  if (markers === 0) return undefined;
  for (const s of segments) {
    while (s.lines.length > 0 && s.lines[0]!.trim() === '') s.lines.shift();
    while (s.lines.length > 0 && s.lines[s.lines.length - 1]!.trim() === '') s.lines.pop();
  }
  return segments;
}

/** Start lines where a segment's lines all match (indentation kept, trailing space and punctuation folded). */
function segmentOccurrences(model: TextModel, lines: readonly string[]): number[] {
  const keys = lineKeys(model);
  const out: number[] = [];
  const want = lines.map(foldedKey);
  for (const i of keys.byContent.get(contentKey(lines[0]!)) ?? []) {
    if (i + lines.length > keys.folded.length) continue;
    let ok = true;
    for (let j = 0; j < lines.length && ok; j++) ok = keys.folded[i + j] === want[j];
    if (ok) out.push(i);
  }
  return out;
}

/**
 * Every way to place the segments in order, each after the previous one with at least one non-blank line
 * elided between them. Each placement is a distinct location, so more than one is ambiguous.
 */
function enumerateReadings(
  model: TextModel,
  segments: readonly Segment[],
  occurrences: readonly number[][],
): { readings: number[][]; truncated: boolean } {
  const content = lineKeys(model).content;
  const nonBlankBefore: number[] = new Array<number>(content.length + 1);
  nonBlankBefore[0] = 0;
  for (let i = 0; i < content.length; i++) nonBlankBefore[i + 1] = nonBlankBefore[i]! + (content[i] === '' ? 0 : 1);
  const hasText = (from: number, to: number): boolean => to > from && nonBlankBefore[to]! - nonBlankBefore[from]! > 0;
  const readings: number[][] = [];
  // Past the cap the find is ambiguous anyway; one extra reading is collected to know the cap was passed.
  const walk = (seg: number, after: number, acc: number[]): void => {
    for (const start of occurrences[seg]!) {
      if (readings.length > MAX_READINGS) return;
      if (seg > 0 && (start < after || !hasText(after, start))) continue;
      const next = [...acc, start];
      if (seg === segments.length - 1) readings.push(next);
      else walk(seg + 1, start + segments[seg]!.lines.length, next);
    }
  };
  walk(0, 0, []);
  const truncated = readings.length > MAX_READINGS;
  return { readings: truncated ? readings.slice(0, MAX_READINGS) : readings, truncated };
}

/**
 * The replacement of a reading. Without markers in replace, replace stands for the whole span (the elided
 * text is replaced too). With the same number of markers, each marker keeps the elided file text verbatim.
 */
function renderReplacement(
  model: TextModel,
  segments: readonly Segment[],
  starts: readonly number[],
  replLines: readonly string[],
  keepElided: boolean,
): string {
  if (!keepElided) return replLines.join('\n');
  // Blank lines next to a marker were dropped from find's segments; drop them from replace's too, so the
  // kept text (which holds the file's own blank lines) is not padded twice.
  const parts = splitSegments(replLines)!;
  const out: string[] = [...parts[0]!.lines];
  for (let seg = 1; seg < parts.length; seg++) {
    const from = starts[seg - 1]! + segments[seg - 1]!.lines.length;
    out.push(...model.lines.slice(from, starts[seg]!), ...parts[seg]!.lines);
  }
  return out.join('\n');
}

/**
 * The one reading that a two-piece elision with a replacement (no markers in it) can be settled on when its
 * pieces fit several placements, or `undefined` to refuse. All of these must hold:
 * 1. One piece is strong: it occurs once in the file and has at least `SHORT_FIND_CHARS` non-whitespace
 *    characters. It fixes one end of the span.
 * 2. The other (weak) piece is read at its nearest copy on the side the find puts it, with at least one
 *    non-blank line elided between the two: the elided text then holds no copy of either piece. Every
 *    farther copy would make the elided text contain the piece it is anchored by.
 * 3. replace begins with the head piece and ends with the tail piece (compared trimmed and folded): it is the
 *    new text of the whole span, anchors included; and has no line of the weak piece between them (if its
 *    new text holds a copy, perhaps with lines added inside, the elided text may well have held one too).
 * 4. replace keeps at least one informative line of that reading's elided text: its author saw that text.
 *    Or, failing that, it has a line similar to one of them (`similarLines`: the line edited) and no line
 *    similar to an informative line between the weak piece's chosen copy and its next farther copy.
 * 5. the span does not already read as replace (an edit that changes nothing is not what was meant), and
 *    replace has no informative line that the file has between the weak piece's chosen copy and its next
 *    farther copy (or the file's edge) and not inside the span: that text is what a farther reading would
 *    add, and a replacement that repeats it means the span reaches there (applying the nearest would
 *    duplicate it).
 * Lines compare by their trimmed, folded content. Readings are at most one per find, so this is O(lines).
 */
function settleReading(
  model: TextModel,
  segments: readonly Segment[],
  occurrences: readonly number[][],
  replLines: readonly string[],
  keepElided: boolean,
): number[] | undefined {
  if (keepElided || segments.length !== 2) return undefined;
  const [head, tail] = [segments[0]!.lines, segments[1]!.lines];
  const [heads, tails] = [occurrences[0]!, occurrences[1]!];
  const strong = (k: number) =>
    occurrences[k]!.length === 1 && nonWsLength(segments[k]!.lines.join('')) >= SHORT_FIND_CHARS;
  const content = lineKeys(model).content;
  const hasText = (from: number, to: number) => content.slice(from, to).some((k) => k !== '');
  let h: number;
  let t: number;
  let farther: [number, number];
  if (strong(0) && tails.length > 1) {
    h = heads[0]!;
    const next = tails.findIndex((i) => i >= h + head.length);
    if (next < 0) return undefined;
    t = tails[next]!;
    farther = [t + tail.length, (tails[next + 1] ?? content.length) + tail.length];
  } else if (strong(1) && heads.length > 1) {
    t = tails[0]!;
    const prev = heads.findLastIndex((i) => i + head.length <= t);
    if (prev < 0) return undefined;
    h = heads[prev]!;
    farther = [heads[prev - 1] ?? 0, h];
  } else return undefined;
  if (!hasText(h + head.length, t)) return undefined;
  // Copies of the weak piece that overlap the chosen one (`}` `}` `}` for the piece `}` `}`) do not fix its place.
  if (overlapsCopy(heads, h, head.length) || overlapsCopy(tails, t, tail.length)) return undefined;
  const repl = framedReplace(replLines, head, tail);
  if (!repl) return undefined;
  const mid = repl.slice(head.length, repl.length - tail.length);
  // Compared as `segmentOccurrences` compares (indentation kept); any line of the piece, since a copy of it
  // kept in replace may have lines added inside.
  const weakPiece = (strong(0) ? tail : head).map(foldedKey);
  const exactMid = replLines.slice(head.length, replLines.length - tail.length).map(foldedKey);
  if (weakPiece.some((k) => exactMid.includes(k))) return undefined;
  if (readsAsReplace(content, h, t + tail.length, repl)) return undefined;
  const elidedLines = content.slice(h + head.length, t).filter(isInformative);
  const elided = new Set(elidedLines);
  const span = new Set(content.slice(h, t + tail.length));
  const beyondLines = content.slice(farther[0], farther[1]).filter((k) => isInformative(k) && !span.has(k));
  const beyond = new Set(beyondLines);
  if (mid.some((k) => isInformative(k) && beyond.has(k))) return undefined;
  if (
    !mid.some((k) => isInformative(k) && elided.has(k)) &&
    !closesBlock(model, strong(0), h, h + head.length, t, tail.length)
  ) {
    // No line kept as it is: a line of the elided text edited (similar, and like nothing a farther copy
    // would add) shows the author saw that text too.
    const near = content.slice(farther[0], farther[1]).filter(isInformative);
    // Bounded: each comparison costs up to the product of two line lengths.
    if (mid.length * (elidedLines.length + near.length) > MAX_SIMILAR_PAIRS) return undefined;
    const edited = (k: string) => isInformative(k) && elidedLines.some((e) => similarLines(e, k));
    if (!mid.some(edited)) return undefined;
    if (mid.some((k) => isInformative(k) && near.some((b) => similarLines(b, k)))) return undefined;
  }
  return [h, t];
}

/**
 * Whether the weak piece of a two-piece elision closes (or opens) the block the other piece and the elided
 * text sit in: with a weak tail, every non-blank line from the head's second line to the tail's copy is
 * indented deeper than the tail, and the head's first line no less (it may open the block the tail closes):
 * that copy closes their block, a farther one lies outside it. With a weak head, the same mirrored. Lines
 * `from..t` (exclusive) are the elided text; `h` is the head's first line, `t` the tail's.
 */
function closesBlock(
  model: TextModel,
  weakTail: boolean,
  h: number,
  from: number,
  t: number,
  tailLength: number,
): boolean {
  const lines = model.lines;
  const edgeLine = lines[weakTail ? t : from - 1]!;
  if (edgeLine.trim() === '') return false;
  const limit = columns(edgeLine);
  // The line that may sit at the weak piece's own level: the opener (weak tail) or the closer (weak head).
  const [lo, hi, level] = weakTail ? [h, t, h] : [from, t + tailLength, t + tailLength - 1];
  let deeper = 0;
  for (let i = lo; i < hi; i++) {
    const l = lines[i]!;
    if (l.trim() === '') continue;
    const w = columns(l);
    if (w < limit || (w === limit && i !== level)) return false;
    if (i >= from && i < t) deeper++;
  }
  return deeper > 0;
}

/** Width of a line's indentation in columns (a tab counts 4). */
function columns(line: string): number {
  let w = 0;
  for (const c of line) {
    if (c === ' ') w++;
    else if (c === '\t') w += 4;
    else break;
  }
  return w;
}

/**
 * Whether replace writes no line but the pieces' own while the reading elides text: the elided text would
 * go without a line of replace standing for it.
 */
function deletesElided(
  model: TextModel,
  segments: readonly Segment[],
  starts: readonly number[],
  replLines: readonly string[],
): boolean {
  const content = lineKeys(model).content;
  let elided = false;
  for (let k = 0; k + 1 < starts.length && !elided; k++)
    for (let i = starts[k]! + segments[k]!.lines.length; i < starts[k + 1]! && !elided; i++) elided = content[i] !== '';
  if (!elided) return false;
  const pieces = new Set(segments.flatMap((seg) => seg.lines.map(contentKey)));
  return !replLines.some((l) => contentKey(l) !== '' && !pieces.has(contentKey(l)));
}
