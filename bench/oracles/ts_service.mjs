// One TypeScript LanguageService over a package's files, for the TypeScript oracles
// (ts_definitions.mjs, ts_references.mjs): `request` is {"root": dir, "files":
// [absolute paths: the root names]}; `options` are the program's compiler options.
// Files are read once each; every script is version "1" (nothing changes).
export function languageService(ts, request, options) {
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
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}
