/**
 * The elision pass: a `find` with `...` marker lines ("something is left out here") is split into segments
 * that anchor the span at both ends (after Aider's `try_dotdotdots`).
 *
 * Anchors are often common lines (`}`, a closing docstring), so several placements ("readings") can fit.
 * Every placement counts as a location. One reading is taken only on evidence from the replacement, which
 * is the new text of the span: it must be the smallest line diff to the replacement by a clear margin AND
 * the replacement must keep at least one informative line of that reading's elided text. A replacement
 * that says nothing about the elided text (e.g. deletes it all) never picks between readings.
 */
import type { PassOutcome } from './match.js';
import { renderCandidate } from './render.js';
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
  // A short piece (`}`, `return x`) that occurs more than once anchors nothing: a drifted piece would land on
  // another copy of it. Longer pieces may repeat as long as the placement of all pieces together is unique.
  const weak = segments.findIndex(
    (seg, k) => occurrences[k]!.length > 1 && nonWsLength(seg.lines.join('')) < SHORT_FIND_CHARS,
  );
  if (weak >= 0) {
    const spans = occurrences[weak]!.slice(0, 20).map((i) =>
      spanCandidate(model, i, i + segments[weak]!.lines.length - 1, ''),
    );
    return { strategy: 'elision', candidates: spans, truncated: occurrences[weak]!.length > 20 };
  }
  const { readings, truncated } = enumerateReadings(model, segments, occurrences);
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
