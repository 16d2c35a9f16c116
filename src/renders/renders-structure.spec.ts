import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The shape of src/renders, checked from its own import statements (type imports included): no
 * import circle, no file over 400 lines, and no strategy reaching into another strategy.
 */
const ROOT = path.join(__dirname);
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [full] : [];
  });
}

/** The files under src/renders each file imports (relative imports resolved to a .ts file or a folder's index.ts). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].flatMap(([, specifier]) => {
      const base = path.resolve(path.dirname(file), specifier);
      return [`${base}.ts`, path.join(base, 'index.ts')].filter((candidate) => known.has(candidate)).slice(0, 1);
    });
    graph.set(file, targets);
  }
  return graph;
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].map((f) => path.relative(ROOT, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('src/renders structure', () => {
  const files = sourceFiles(ROOT);
  const graph = importGraph(files);

  it('has no import circle', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a circle when there is one (the check itself)', () => {
    const [a, b] = files;
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toHaveLength(1);
  });

  it('has no file over 400 lines', () => {
    const long = files.flatMap((file) => {
      const lines = readFileSync(file, 'utf8').split('\n').length - 1;
      return lines > MAX_LINES ? [`${path.relative(ROOT, file)}: ${lines}`] : [];
    });
    expect(long).toEqual([]);
  });

  it('keeps each strategy out of the others: a strategy imports only shared engine modules', () => {
    const strategies = path.join(ROOT, 'engine', 'strategies');
    /** The strategy a file belongs to: its folder under strategies/, or its own *.strategy.ts. */
    const owner = (file: string) => {
      if (!file.startsWith(`${strategies}${path.sep}`)) return null;
      const [first] = path.relative(strategies, file).split(path.sep);
      return first === 'strategy.ts' ? null : first.replace(/\.strategy\.ts$/, '');
    };
    const crossings = files.flatMap((file) =>
      (graph.get(file) ?? []).flatMap((target) => {
        const [from, to] = [owner(file), owner(target)];
        return from !== null && to !== null && to !== from ? [`${path.relative(ROOT, file)} → ${path.relative(ROOT, target)}`] : [];
      }),
    );
    expect(crossings).toEqual([]);
  });
});
