/**
 * Fails (exit 1) when the source has an import cycle, listing each one:
 *
 * - between folders: a folder is `server/<feature>/`, `shared/<x>/`, `extension/<x>/`, `ui/<x>/` or `console/<x>/`
 *   (everything below it counts as the folder); a file directly in one of those roots is a node of its own;
 * - between files.
 *
 * Every import counts: `import type` too, since it is as much a dependency of the design as any other, and side-effect
 * imports, re-exports and `import()`. Module names are resolved with the compiler options of tsconfig.json (paths,
 * `.ts` extensions), so the WXT aliases resolve like they do for the type checker; packages are left out.
 *
 * Each cycle is reported as a strongly connected component (the smallest set of nodes that import one another) with,
 * for each import inside it, one file that makes it: that is the list of places to cut.
 *
 * Usage: tsx scripts/check-import-cycles.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_ROOTS = ['server', 'shared', 'extension', 'ui', 'console'];
const SKIPPED_DIRS = new Set(['node_modules', '.output', '.wxt']);
const SOURCE_FILE = /\.(ts|tsx|mts|cts)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(full);
    return SOURCE_FILE.test(entry.name) ? [full] : [];
  });
}

function compilerOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('tsconfig.json could not be read');
  return parsed.options;
}

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/** The folder node of a file: its first folder below the source root, or the file itself when it has none. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
}

type Graph = Map<string, Map<string, string>>;

function addEdge(graph: Graph, from: string, to: string, example: string): void {
  let targets = graph.get(from);
  if (!targets) graph.set(from, (targets = new Map()));
  if (!targets.has(to)) targets.set(to, example);
}

/** Tarjan's algorithm: the strongly connected components with more than one node, or a node importing itself. */
function cycles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];

  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };

  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

function report(kind: string, graph: Graph): number {
  const found = cycles(graph);
  for (const component of found) {
    const members = new Set(component);
    console.error(`${kind} cycle: ${component.join(', ')}`);
    for (const from of component) {
      for (const [to, example] of graph.get(from) ?? []) {
        if (members.has(to)) console.error(`  ${from} -> ${to}${example ? `  (${example})` : ''}`);
      }
    }
  }
  return found.length;
}

const options = compilerOptions();
const files = SOURCE_ROOTS.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
const known = new Set(files);
const fileGraph: Graph = new Map();
const folderGraph: Graph = new Map();

for (const file of files) {
  const from = relative(file);
  addEdge(fileGraph, from, from, '');
  fileGraph.get(from)!.delete(from);
  for (const imported of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
    const resolved = ts.resolveModuleName(imported.fileName, file, options, ts.sys).resolvedModule;
    if (!resolved || resolved.isExternalLibraryImport || !known.has(path.resolve(resolved.resolvedFileName))) continue;
    const to = relative(path.resolve(resolved.resolvedFileName));
    addEdge(fileGraph, from, to, '');
    if (folderOf(from) !== folderOf(to)) addEdge(folderGraph, folderOf(from), folderOf(to), `${from} imports ${to}`);
  }
}

const count = report('folder', folderGraph) + report('file', fileGraph);
if (count > 0) {
  console.error(`\n${count} import cycle(s) in ${files.length} files.`);
  process.exit(1);
}
console.log(
  `No import cycles: ${files.length} files in ${SOURCE_ROOTS.join(', ')}; ${folderGraph.size} folders import others.`,
);
