// Checks the .vsix that `vsce package` wrote: the files it must hold and must not,
// and that the bundle needs nothing at run time but `vscode` and Node's own modules.
// Prints the size. Reads the zip's central directory itself (no unzip needed).
import { builtinModules } from 'node:module';
import { readFileSync, statSync } from 'node:fs';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const vsix = `${manifest.name}-${manifest.version}.vsix`;

function zipEntries(buffer) {
  const eocd = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error(`${vsix} is not a zip file`);
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  const names = [];
  for (let i = 0; i < count; i++) {
    if (buffer.readUInt32LE(offset) !== 0x02014b50) throw new Error(`${vsix}: bad central directory`);
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    names.push(buffer.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

const problems = [];
const names = zipEntries(readFileSync(vsix));
for (const required of ['extension/package.json', 'extension/dist/extension.js', 'extension/readme.md']) {
  if (!names.some((n) => n.toLowerCase() === required)) problems.push(`missing ${required}`);
}
if (!names.some((n) => /^extension\/license(\.txt)?$/i.test(n))) problems.push('missing the license');
for (const name of names) {
  if (/^extension\/(src|test|out|node_modules|scripts)\//.test(name) || name.endsWith('.map') || name.endsWith('.ts')) {
    problems.push(`should not be packaged: ${name}`);
  }
}

const bundle = readFileSync('dist/extension.js', 'utf8');
const allowed = new Set(['vscode', ...builtinModules]);
const required = new Set([...bundle.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]));
for (const module of required) {
  if (!allowed.has(module) && !module.startsWith('node:')) problems.push(`the bundle requires ${module}`);
}

if (problems.length) {
  console.error(`${vsix}:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const kib = (statSync(vsix).size / 1024).toFixed(1);
console.log(`${vsix}: ${kib} KiB, ${names.length} files, bundle needs only: ${[...required].sort().join(', ')}`);
