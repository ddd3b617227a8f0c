/**
 * The repository's layering, checked by `npm run lint` (dependency-cruiser, pinned in package.json).
 * Each rule is one the README's "Map of the repo" states: data flows platform adapter -> client ->
 * transport, the client holds all domain logic behind its two entry points, and the sandbox implements
 * the spec on its own.
 */

/**
 * A rule every module matching `from` breaks by importing a module matching `to`; each one fails lint.
 * @returns {import('dependency-cruiser').IForbiddenRuleType}
 */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

/**
 * Folders under `parent` whose name matches `folder` stay apart: a module in one imports nothing from
 * another (the `$1` in pathNot is the folder the importing module sits in).
 */
const foldersStayApart = (name, comment, parent, folder) =>
  forbid(
    name,
    comment,
    { path: `^${parent}(${folder})/` },
    { path: `^${parent}${folder}/`, pathNot: `^${parent}$1/` },
  );

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid(
      'no-cycles',
      'A cycle (type-only imports included) means two modules hold one thing: move the shared part to a leaf.',
      {},
      { circular: true },
    ),
    forbid(
      'adapters-use-client-entry-points',
      'A platform adapter (Zapier, n8n, Make tests) reaches the client only through @evf/client or @evf/client/node, never its internals: what the adapters need is public, and internals may move.',
      { path: '^(packages/(zapier|n8n|make)|bench|scripts)/' },
      { path: '^packages/client/', pathNot: '^packages/client/src/(index|node/index)\\.ts$' },
    ),
    forbid(
      'adapters-use-tables-entry-point',
      'A platform adapter, a benchmark or a script reaches the table reader and writer only through @evf/tables, never its internals.',
      { path: '^(packages/(zapier|n8n|make)|bench|scripts)/' },
      { path: '^packages/tables/', pathNot: '^packages/tables/src/index\\.ts$' },
    ),
    forbid(
      'tables-use-client-entry-point',
      'The tables package takes what it needs of the client (its error, address syntax, the row-verdict rule) through @evf/client, as an adapter does.',
      { path: '^packages/tables/src/' },
      { path: '^packages/client/', pathNot: '^packages/client/src/index\\.ts$' },
    ),
    forbid(
      'tables-knows-no-platform',
      'The tables package is bundled into the platforms: it imports none of them, nor the sandbox.',
      { path: '^packages/tables/src/' },
      { path: '^(packages/(sandbox|zapier|n8n|make)|shared)/' },
    ),
    forbid(
      'sandbox-stands-alone',
      'The sandbox implements the spec on its own, so a wrong rule in the client cannot pass the conformance suites.',
      { path: '^packages/sandbox/src/' },
      { path: '^packages/(client|zapier|n8n|make)/' },
    ),
    forbid(
      'client-knows-no-platform',
      'The client is the layer below every platform and the sandbox: it imports none of them.',
      { path: '^packages/client/src/' },
      { path: '^(packages/(sandbox|tables|zapier|n8n|make)|shared)/' },
    ),
    forbid(
      'client-core-stays-platform-neutral',
      "@evf/client is bundled into n8n's node, whose scanner refuses timers and process: only the @evf/client/node entry (src/node/) may use Node's defaults, and nothing else in the client imports it.",
      { path: '^packages/client/src/', pathNot: '^packages/client/src/node/' },
      { path: '^packages/client/src/node/' },
    ),
    foldersStayApart(
      'n8n-operation-stays-in-its-folder',
      "One n8n operation's folder never imports another's: code two operations share lives in helpers/ or transport/ (as in n8n's own Airtable v2 node).",
      'packages/n8n/nodes/EmailVerification/actions/',
      '[^/]+',
    ),
    forbid(
      'n8n-triggers-use-no-operation-folder',
      "A trigger node shares the action node's helpers/, transport/ and common descriptions, never an operation's folder.",
      { path: '^packages/n8n/nodes/EmailVerification[A-Za-z]*Trigger/' },
      { path: '^packages/n8n/nodes/EmailVerification/actions/[^/]+/' },
    ),
    foldersStayApart(
      'n8n-triggers-do-not-import-each-other',
      "Code both triggers need lives in the action node's helpers/.",
      'packages/n8n/nodes/',
      'EmailVerification[A-Za-z]*Trigger',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|build|\\.n8n)/' },
    // Type-only imports count: the cycle the client had was one.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Workspace packages resolve to their TypeScript source, as jest and tsc resolve them.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['source', 'require', 'import', 'node', 'default'],
      extensions: ['.ts', '.cjs', '.mjs', '.js', '.json'],
      mainFields: ['main', 'types'],
    },
    combinedDependencies: false,
  },
};
