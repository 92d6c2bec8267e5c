// The TypeScript oracle of bench/next_edit_oracles.py: every reference of the
// symbol at each position, by the TypeScript LanguageService.
//
//   node ts_references.mjs TYPESCRIPT_DIR < request.json > answer.json
//
// Request: {"root": dir, "files": [absolute paths], "queries": [[absolute path, UTF-16 offset], ...]}
// Answer:  {"version": ts.version, "answers": [[[path, 0-based line, UTF-16 character], ...], ...]}
// one list per query (the declaration included), in order; a query TypeScript cannot answer gets [].
// The program settings of ts_definitions.mjs (allowJs, checkJs off, no emit) but no
// DOM lib and no JSX; the service is ts_service.mjs's.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

import { languageService } from "./ts_service.mjs";

const ts = createRequire(import.meta.url)(path.resolve(process.argv[2]));
const request = JSON.parse(fs.readFileSync(0, "utf8"));

const options = {
  allowJs: true,
  checkJs: false,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  skipLibCheck: true,
  lib: ["lib.es2022.d.ts"],
};
const service = languageService(ts, request, options);
const program = service.getProgram();

const answers = request.queries.map(([file, offset]) => {
  let found;
  try {
    found = service.getReferencesAtPosition(file, offset) || [];
  } catch {
    return [];
  }
  return found.map((r) => {
    const source = program.getSourceFile(r.fileName);
    const at = source ? source.getLineAndCharacterOfPosition(r.textSpan.start) : { line: -1, character: -1 };
    return [r.fileName, at.line, at.character];
  });
});
process.stdout.write(JSON.stringify({ version: ts.version, answers }));
