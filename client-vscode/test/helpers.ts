import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The extension's root (test bundles run from out/test). */
export const ROOT = path.resolve(__dirname, '..', '..');

export function readJson(relative: string): unknown {
  return JSON.parse(readFileSync(path.join(ROOT, relative), 'utf8'));
}
