// The TypeScript oracle of bench/next_edit_oracles.py: every reference of the
// symbol at each position, by the TypeScript LanguageService.
//
//   node ts_references.mjs TYPESCRIPT_DIR < request.json > answer.json
//
// Request: {"root": dir, "files": [absolute paths], "queries": [[absolute path, UTF-16 offset], ...]}
// Answer:  {"version": ts.version, "answers": [[[path, 0-based line, UTF-16 character], ...], ...]}
// one list per query (the declaration included), in order; a query TypeScript cannot answer gets [].
// The same program settings as ts_definitions.mjs: allowJs, checkJs off, no emit.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

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
const texts = new Map();
const read = (file) => {
  if (!texts.has(file)) texts.set(file, ts.sys.readFile(file));
  return texts.get(file);
};
const host = {
  getScriptFileNames: () => request.files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (file) => {
    const text = read(file);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => request.root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: read,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
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
