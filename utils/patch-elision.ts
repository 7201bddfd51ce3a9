/**
 * The elision pass: a `find` with `...` marker lines ("keep what is here") is split into segments that
 * anchor the span at both ends; the elided text between them is located, never guessed (Aider's
 * `try_dotdotdots` requires each piece to be unique; research edit-matching.md §6.3 P8).
 */
import type { PassOutcome } from './patch-match.js';
import { type Candidate, contentKey, foldedKey, lineKeys, spanCandidate, type TextModel } from './patch-text.js';

/**
 * A line that only says "something was left out here": `...` or `…`, optionally inside a line comment
 * or block comment, optionally with a few words (`// ... existing code ...`).
 */
const MARKER = /^(?:\/\/|#|--|;|\/\*|<!--)?\s*(?:\.\.\.|…)(?:[ \w,'-]{0,40}(?:\.\.\.|…))?\s*(?:\*\/|-->)?$/;

/** Whether a line is an elision marker. */
export function isElisionMarker(line: string): boolean {
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
  if (replMarkers !== 0 && replMarkers !== segments.length - 1) {
    return {
      strategy: 'elision',
      refusal: {
        code: 'patch_elision_unpaired',
        message: `find has ${segments.length - 1} "..." line(s) but replace has ${replMarkers}; use the same number or none`,
      },
    };
  }
  const occurrences = segments.map((s) => segmentOccurrences(model, s.lines));
  const readings = enumerateReadings(model, segments, occurrences);
  const candidates: Candidate[] = readings.map((starts) => {
    const first = starts[0]!;
    const lastSeg = segments.length - 1;
    const last = starts[lastSeg]! + segments[lastSeg]!.lines.length - 1;
    return spanCandidate(model, first, last, renderReplacement(model, segments, starts, replLines, replMarkers > 0));
  });
  return candidates.length > 0 ? { strategy: 'elision', candidates } : undefined;
}

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
function enumerateReadings(model: TextModel, segments: readonly Segment[], occurrences: readonly number[][]): number[][] {
  const content = lineKeys(model).content;
  const nonBlankBefore: number[] = new Array<number>(content.length + 1);
  nonBlankBefore[0] = 0;
  for (let i = 0; i < content.length; i++) nonBlankBefore[i + 1] = nonBlankBefore[i]! + (content[i] === '' ? 0 : 1);
  const hasText = (from: number, to: number): boolean => to > from && nonBlankBefore[to]! - nonBlankBefore[from]! > 0;
  const readings: number[][] = [];
  const LIMIT = 1000;
  const walk = (seg: number, after: number, acc: number[]): void => {
    if (readings.length >= LIMIT) return;
    for (const start of occurrences[seg]!) {
      if (seg > 0 && !hasText(after, start)) continue;
      if (seg > 0 && start < after) continue;
      const next = [...acc, start];
      if (seg === segments.length - 1) readings.push(next);
      else walk(seg + 1, start + segments[seg]!.lines.length, next);
    }
  };
  walk(0, 0, []);
  return readings;
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
