/**
 * How each Lambda function's code is built: the one definition that infra/stack/functions.ts (at synth), the cold-start
 * bench and the bundle smoke test use. esbuild bundles `functions/<name>/handler.ts` as ESM with code
 * splitting: the entry `index.mjs` holds what the module's top level imports, and every module reached only
 * through a dynamic `import()` (SDK clients, parsers, template schemas, ...) becomes a chunk under `chunks/`
 * that Node loads on first use. The AWS SDK is bundled (the runtime's copy is not version-pinned).
 *
 * `npx tsx infra/bundle.ts <name> <outdir>` builds one function (the Docker fallback of the stack's bundling).
 */
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: entry points are resolved against it. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** The options of one function's build (exported so the bench can report the metafile of the same build). */
export function bundleOptions(name: string, outdir: string): BuildOptions {
  return {
    absWorkingDir: projectRoot,
    entryPoints: { index: `functions/${name}/handler.ts` },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: ['module', 'main'],
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    minify: true,
    // No source maps: with NODE_OPTIONS=--enable-source-maps Node parses a bundle's map as the module loads
    // (about 200 ms more for graphql). Stack traces in the logs therefore show minified names.
    sourcemap: false,
    legalComments: 'none',
    // ESM output has no `require`; CommonJS dependencies inside the bundle still call it (each chunk gets its own).
    banner: { js: "import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);" },
    metafile: true,
    logLevel: 'warning',
  };
}

/** Builds `functions/<name>/handler.ts` into `outdir` (emptied first): `index.mjs` exports `handler`. */
export function buildFunctionBundle(name: string, outdir: string): Metafile {
  rmSync(outdir, { recursive: true, force: true });
  const result = buildSync(bundleOptions(name, outdir));
  return result.metafile!;
}

const built = new Map<string, string>();

/**
 * The stack's bundling step: builds a function once per process and copies that build into each asset
 * directory asked for (a synth with several stacks, as the infra tests do, bundles each function once).
 */
export function stageFunctionBundle(name: string, outputDir: string): void {
  let source = built.get(name);
  if (!source) {
    source = join(mkdtempSync(join(tmpdir(), `plm-bundle-${name}-`)), 'out');
    buildFunctionBundle(name, source);
    built.set(name, source);
  }
  cpSync(source, outputDir, { recursive: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [name, outdir] = process.argv.slice(2);
  if (!name || !outdir) throw new Error('usage: tsx infra/bundle.ts <function name> <outdir>');
  buildFunctionBundle(name, outdir);
}
