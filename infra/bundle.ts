/**
 * How each Lambda function's code is built: the one definition that infra/stack/functions.ts (at synth), the cold-start
 * bench and the bundle smoke test use. esbuild bundles `functions/<name>/handler.ts` as ESM with code
 * splitting: the entry `index.mjs` holds what the module's top level imports, and every module reached only
 * through a dynamic `import()` (SDK clients, parsers, template schemas, ...) becomes a chunk under `chunks/`
 * that Node loads on first use. The AWS SDK is bundled (the runtime's copy is not version-pinned).
 *
 * `npx tsx infra/bundle.ts <name> <outdir>` builds one function (the Docker fallback of the stack's bundling).
 */
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
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
    alias: {
      // graphql-armor's max-tokens plugin imports graphql's parser without an extension, which resolves to the
      // CommonJS build: a second copy of the parser and lexer beside the ESM graphql everything else uses.
      'graphql/language/parser': 'graphql/language/parser.mjs',
      // A multipart/urlencoded body parser no function uses (infra/bundleStubs/busboy.cjs says why).
      '@fastify/busboy': './infra/bundleStubs/busboy.cjs',
    },
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

/**
 * Modules the functions import but never run, left out of the bundles: graphql-yoga imports its landing
 * page's HTML (12 KB) at the top of a plugin, and serves it only with `landingPage: true` (the GraphQL
 * function sets false); an import of it would fail loudly.
 */
const leftOut: Plugin = {
  name: 'plm-left-out',
  setup(bundler) {
    bundler.onResolve({ filter: /landing-page-html\.js$/ }, (args) => (args.importer.includes('graphql-yoga') ? { path: args.path, namespace: 'plm-left-out' } : undefined));
    bundler.onLoad({ filter: /.*/, namespace: 'plm-left-out' }, () => ({
      contents: "export default new Proxy({}, { get() { throw new Error('graphql-yoga landing page: left out of the bundle (infra/bundle.ts)'); } });",
      loader: 'js',
    }));
  },
};

/** Builds `functions/<name>/handler.ts` into `outdir` (emptied first): `index.mjs` exports `handler`. */
export async function buildFunctionBundle(name: string, outdir: string): Promise<Metafile> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({ ...bundleOptions(name, outdir), plugins: [leftOut] });
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
    const scratch = mkdtempSync(join(tmpdir(), `plm-bundle-${name}-`));
    // The build serves this process (a synth) and goes with it.
    process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
    source = join(scratch, 'out');
    // The stack's bundling is synchronous and esbuild's plugins need its asynchronous API: a child process builds.
    execFileSync(process.execPath, ['--import', 'tsx', join(projectRoot, 'infra', 'bundle.ts'), name, source], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    built.set(name, source);
  }
  cpSync(source, outputDir, { recursive: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [name, outdir] = process.argv.slice(2);
  if (!name || !outdir) throw new Error('usage: tsx infra/bundle.ts <function name> <outdir>');
  await buildFunctionBundle(name, outdir);
}
