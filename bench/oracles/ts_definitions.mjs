// The TypeScript oracle of bench/context_recall.py: where the TypeScript
// LanguageService says each identifier is defined.
//
//   node ts_definitions.mjs TYPESCRIPT_DIR < request.json > answer.json
//
// TYPESCRIPT_DIR is the unpacked npm `typescript` package (pinned by the bench).
// Request: {"root": dir, "files": [absolute paths: the root names],
//           "queries": [[absolute path, UTF-16 offset], ...]}
// Answer:  {"version": ts.version, "answers": [[[path, 0-based line, kind, name], ...], ...]}
// one list per query, in order; a query TypeScript cannot answer gets [].
// One LanguageService for the whole package (allowJs, checkJs off, no emit), so
// a batch of thousands of queries costs one program build.
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
  jsx: ts.JsxEmit.Preserve,
  skipLibCheck: true,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
};
const service = languageService(ts, request, options);
const program = service.getProgram();

const answers = request.queries.map(([file, offset]) => {
  let found;
  try {
    found = service.getDefinitionAtPosition(file, offset) || [];
  } catch {
    return [];  // the service throws on a few odd positions: no answer
  }
  return found.map((d) => {
    const source = program.getSourceFile(d.fileName);
    const line = source ? source.getLineAndCharacterOfPosition(d.textSpan.start).line : -1;
    return [d.fileName, line, d.kind, d.name];
  });
});
process.stdout.write(JSON.stringify({ version: ts.version, answers }));
