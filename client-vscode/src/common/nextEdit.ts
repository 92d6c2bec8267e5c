/**
 * Next-edit suggestions as the server announces them (`sparkls/nextEdit`): the offer
 * per document, kept until it is withdrawn (`suggestion: null`). Pure: no VS Code API.
 */
import type { Range } from './protocol';

export const NEXT_EDIT_NOTIFICATION = 'sparkls/nextEdit';
export const NEXT_EDIT_COMMAND = 'sparkls.nextEdit';
export const ACCEPT_NEXT_EDIT_COMMAND = 'sparkls.acceptNextEdit';

/** One suggestion: replace `range` (now `oldText`) by `newText`; `line` is 0-based. */
export interface NextEditOffer {
  uri: string;
  version: number;
  line: number;
  title: string;
  reason: string;
  range: Range;
  oldText: string;
  newText: string;
}

function isRange(value: unknown): value is Range {
  const r = value as Range | undefined;
  const pos = (p: unknown) =>
    typeof p === 'object' && p !== null && Number.isInteger((p as { line: unknown }).line) &&
    Number.isInteger((p as { character: unknown }).character);
  return typeof r === 'object' && r !== null && pos(r.start) && pos(r.end);
}

/** The notification's (uri, offer or null); undefined when it is not one. */
export function parseNextEdit(params: unknown): { uri: string; offer: NextEditOffer | null } | undefined {
  if (typeof params !== 'object' || params === null || typeof (params as { uri: unknown }).uri !== 'string') {
    return undefined;
  }
  const { uri, suggestion } = params as { uri: string; suggestion: unknown };
  if (suggestion === null || suggestion === undefined) {
    return { uri, offer: null };
  }
  const s = suggestion as Partial<NextEditOffer>;
  const strings = [s.title, s.reason, s.oldText, s.newText].every((v) => typeof v === 'string');
  if (!strings || !Number.isInteger(s.line) || !Number.isInteger(s.version) || !isRange(s.range)) {
    return undefined;
  }
  return { uri, offer: { ...(s as NextEditOffer), uri } };
}

/** The offers on screen, by document URI. */
export class NextEdits {
  private readonly offers = new Map<string, NextEditOffer>();

  /** Take in a notification; true when it changed what is on offer. */
  update(params: unknown): boolean {
    const parsed = parseNextEdit(params);
    if (parsed === undefined) {
      return false;
    }
    if (parsed.offer === null) {
      return this.offers.delete(parsed.uri);
    }
    this.offers.set(parsed.uri, parsed.offer);
    return true;
  }

  get(uri: string): NextEditOffer | undefined {
    return this.offers.get(uri);
  }

  clear(): void {
    this.offers.clear();
  }
}

/** What the preview shows after the suggested range: `→ newText` on one line. */
export function previewText(offer: NextEditOffer, max = 60): string {
  const text = offer.newText.replace(/\s*\n\s*/g, ' ⏎ ');
  return `→ ${text.length > max ? text.slice(0, max - 1) + '…' : text}`;
}
