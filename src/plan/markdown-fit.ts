// Keeps a Markdown document within a character budget (GitHub refuses a comment over 65,536
// characters). Every list in it — the risk callout, each table, the held-back lists, the warnings, the
// failed operations — draws on one budget: when the whole does not fit, every list is cut to the same
// number of items, the largest that fits, and a note counts exactly what each lost.

import { shownText } from '../model/index.js';

/** A list of the document whose items may be cut to fit. */
export interface CutList {
  /** What the items are, in the note ("changes in the tables"); lists with the same noun add up. */
  noun: string;
  items: string[];
  /** The block with the items shown (the first ones of `items`); it says when some are left out. */
  render(shown: string[], total: number): string;
}

/** A block of the document: fixed text, or a list. Blocks are separated by blank lines. */
export type Block = string | CutList;

export interface Cut {
  noun: string;
  cut: number;
  total: number;
}

/** The document within `budget` characters if it can be, with `note(cuts)` at the end when cut. */
export function fitBlocks(blocks: Block[], budget: number, note: (cuts: Cut[]) => string): string {
  const whole = layout(blocks, Number.POSITIVE_INFINITY, note);
  if (whole.length <= budget) return whole;
  // The most items per list that still fit, found by halving: each try lays the document out once.
  let fits = 0;
  let tooMany = Math.max(0, ...blocks.map((block) => (typeof block === 'string' ? 0 : block.items.length)));
  while (tooMany - fits > 1) {
    const cap = Math.floor((fits + tooMany) / 2);
    if (layout(blocks, cap, note).length <= budget) fits = cap;
    else tooMany = cap;
  }
  return layout(blocks, fits, note);
}

function layout(blocks: Block[], cap: number, note: (cuts: Cut[]) => string): string {
  const cuts = new Map<string, Cut>();
  const parts = blocks.map((block) => {
    if (typeof block === 'string') return block;
    const shown = block.items.slice(0, cap);
    const tally = cuts.get(block.noun) ?? { noun: block.noun, cut: 0, total: 0 };
    tally.cut += block.items.length - shown.length;
    tally.total += block.items.length;
    cuts.set(block.noun, tally);
    return block.render(shown, block.items.length);
  });
  const cut = [...cuts.values()].filter((tally) => tally.cut > 0);
  if (cut.length > 0) parts.push(note(cut));
  // The one place a Markdown document is joined: a name holding ESC or a bidirectional override is
  // shown escaped in the comment and the file alike, and the budget counts the escapes.
  return `${shownText(parts.join('\n\n'))}\n`;
}

/** A bullet list under a heading, saying how many items were left out. */
export function bulletList(noun: string, heading: string, items: string[]): CutList {
  return {
    noun,
    items,
    render: (shown, total) =>
      [heading, '', ...shown, ...(shown.length < total ? [moreLine('- ', total - shown.length)] : [])].join(
        '\n',
      ),
  };
}

/** The line that stands for the items left out of a list. */
export function moreLine(prefix: string, count: number): string {
  return `${prefix}_…and ${count} more, not shown (see below)._`;
}
