#!/usr/bin/env node
// Writes docs/api-reference.md: every export of the package entry (npm/src/index.ts) with its
// kind, its signature and its doc comment; classes with their public members, interfaces with
// their properties. Run after changing the public API:
//   node scripts/gen_api_reference.mjs          (write)
//   node scripts/gen_api_reference.mjs --check  (exit 1 when the page is stale;
//                                                npm/test/api_reference.test.mjs runs this)
//
// It reads the TypeScript sources (no build needed) with the compiler pinned in npm/, and emits
// their declarations in memory, as tsc -p npm/tsconfig.json writes them (stripInternal drops the
// @internal members, inferred types are spelled out): the page documents what the published
// index.d.ts declares, nothing the source only holds inside bodies. A few seconds.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NPM = join(REPO, 'npm');
const ENTRY = join(NPM, 'src', 'index.ts');
const PAGE = join(REPO, 'docs', 'api-reference.md');
// Where the in-memory declarations live (never written): OUT/index.d.ts, OUT/lib/*.d.ts.
const OUT = '/tir-api-reference';

function loadTypeScript() {
  try {
    return createRequire(join(NPM, 'package.json'))('typescript');
  } catch (e) {
    console.error(`gen_api_reference: cannot load typescript from npm/node_modules (${e.message}): run npm ci in npm/`);
    process.exit(2);
  }
}
const ts = loadTypeScript();

/** {file name -> text} of the declarations of npm/src, as tsc emits them. */
function emitDeclarations() {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } };
  const config = ts.getParsedCommandLineOfConfigFile(join(NPM, 'tsconfig.json'), {}, host);
  const options = { ...config.options, declaration: true, emitDeclarationOnly: true, noEmit: false, outDir: OUT, rootDir: join(NPM, 'src') };
  const program = ts.createProgram([ENTRY], options);
  const files = new Map();
  const result = program.emit(undefined, (name, text) => files.set(name, text), undefined, true);
  if (result.emitSkipped || !files.has(`${OUT}/index.d.ts`)) {
    const why = ts.formatDiagnostics(result.diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => REPO, getNewLine: () => '\n' });
    throw new Error(`declaration emit failed:\n${why}`);
  }
  return files;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

class Declarations {
  constructor(files) {
    this.files = files;
    this.parsed = new Map();
  }

  source(name) {
    let sf = this.parsed.get(name);
    if (!sf) {
      const text = this.files.get(name);
      if (text === undefined) throw new Error(`no declarations for ${name}`);
      sf = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);
      this.parsed.set(name, sf);
    }
    return sf;
  }

  // './lib/model.js' imported from OUT/index.d.ts -> OUT/lib/model.d.ts
  resolve(from, specifier) {
    return posix.join(posix.dirname(from), specifier.replace(/\.js$/, '.d.ts'));
  }

  /** The exports of a declaration file, in order: [{name, local, file, typeOnly}] (local: the
   * name in `file`; typeOnly: `export type`, an interface or a type alias). */
  exportsOf(file, depth = 0) {
    if (depth > 8) throw new Error(`export * cycle at ${file}`);
    const out = [];
    for (const st of this.source(file).statements) {
      if (ts.isExportDeclaration(st)) {
        const from = st.moduleSpecifier ? this.resolve(file, st.moduleSpecifier.text) : file;
        if (!st.exportClause) {
          out.push(...this.exportsOf(from, depth + 1).map((e) => ({ ...e, typeOnly: e.typeOnly || st.isTypeOnly })));
        } else if (ts.isNamedExports(st.exportClause)) {
          for (const el of st.exportClause.elements) {
            out.push({ name: el.name.text, local: (el.propertyName ?? el.name).text, file: from, typeOnly: st.isTypeOnly || el.isTypeOnly });
          }
        } else {
          throw new Error(`${file}: \`export * as ${st.exportClause.name.text}\` is not supported by the generator`);
        }
      } else if (ts.isExportAssignment(st)) {
        throw new Error(`${file}: a default export is not supported by the generator`);
      } else if (hasModifier(st, ts.SyntaxKind.ExportKeyword) && declaredName(st)) {
        const name = declaredName(st);
        const typeOnly = ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st);
        const prev = out.find((e) => e.name === name && e.file === file);
        if (prev) prev.typeOnly &&= typeOnly; // a class and its merged interface: a value
        else out.push({ name, local: name, file, typeOnly });
      }
    }
    return out;
  }

  /** Where a name used in `file` is declared: {file, local} of a top-level declaration or an
   * import from another declaration file; null for globals (lib types) and type parameters. */
  lookup(file, name) {
    const sf = this.source(file);
    if (sf.statements.some((st) => declaredName(st) === name)) return { file, local: name };
    for (const st of sf.statements) {
      if (!ts.isImportDeclaration(st) || !st.importClause?.namedBindings || !ts.isNamedImports(st.importClause.namedBindings)) continue;
      const el = st.importClause.namedBindings.elements.find((e) => e.name.text === name);
      if (el) {
        const from = this.resolve(file, st.moduleSpecifier.text);
        return this.files.has(from) ? { file: from, local: (el.propertyName ?? el.name).text } : null;
      }
    }
    return null;
  }

  /** The top-level statements of `file` that declare `name` (a class and its merged interface
   * are two), following `export { x as name } from ...` re-exports. */
  find(file, name, depth = 0) {
    if (depth > 8) throw new Error(`re-export cycle at ${name} in ${file}`);
    const sf = this.source(file);
    const decls = sf.statements.filter((st) => declaredName(st) === name);
    if (decls.length) return { file, decls };
    const re = this.exportsOf(file).find((e) => e.name === name && e.file !== file);
    if (re) return this.find(re.file, re.local, depth + 1);
    throw new Error(`${name}: no declaration in ${file}`);
  }
}

function declaredName(st) {
  if (ts.isVariableStatement(st)) {
    const d = st.declarationList.declarations;
    return d.length === 1 && ts.isIdentifier(d[0].name) ? d[0].name.text : undefined;
  }
  return st.name && ts.isIdentifier(st.name) ? st.name.text : undefined;
}

function kindOf(st) {
  if (ts.isFunctionDeclaration(st)) return 'function';
  if (ts.isClassDeclaration(st)) return 'class';
  if (ts.isInterfaceDeclaration(st)) return 'interface';
  if (ts.isTypeAliasDeclaration(st)) return 'type';
  if (ts.isModuleDeclaration(st)) return 'namespace';
  if (ts.isVariableStatement(st)) return st.declarationList.flags & ts.NodeFlags.Const ? 'const' : 'let';
  if (ts.isEnumDeclaration(st)) return 'enum';
  return ts.SyntaxKind[st.kind];
}

// The doc comment of a node as written (without /** */ and the leading *), tags included; null
// for none. The last block is the one TypeScript attaches.
function docOf(node) {
  const blocks = (node.jsDoc ?? []).filter((d) => ts.isJSDoc(d));
  if (!blocks.length) return null;
  const block = blocks[blocks.length - 1];
  const raw = block.getSourceFile().text.slice(block.pos, block.end);
  // ' * text' -> 'text' (indentation after the star kept); a line without a star, as in
  // `/** text */`, loses its leading blanks.
  const lines = raw.replace(/^\/\*\*/, '').replace(/\*\/$/, '').split('\n')
    .map((l) => (/^\s*\*/.test(l) ? l.replace(/^\s*\* ?/, '') : l.trimStart()).trimEnd());
  while (lines.length && !lines[0].trim()) lines.shift();
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  return lines.length ? lines.join('\n') : null;
}

function isInternal(node) {
  return (node.jsDoc ?? []).some((d) => (d.tags ?? []).some((t) => t.tagName.text === 'internal'));
}

function hasModifier(node, kind) {
  return (ts.canHaveModifiers(node) ? ts.getModifiers(node) ?? [] : []).some((m) => m.kind === kind);
}

// A member a user can reach: not private/protected, not @internal, not `_name` / `#name`.
function isPublicMember(m) {
  if (hasModifier(m, ts.SyntaxKind.PrivateKeyword) || hasModifier(m, ts.SyntaxKind.ProtectedKeyword)) return false;
  if (isInternal(m)) return false;
  const n = m.name;
  if (n && (ts.isPrivateIdentifier(n) || ((ts.isIdentifier(n) || ts.isStringLiteral(n)) && n.text.startsWith('_')))) return false;
  return true;
}

const print = (node, sf) => printer.printNode(ts.EmitHint.Unspecified, node, sf).trim();
const oneLine = (text) => text.replace(/\s*\n\s*/g, ' ');
const noExport = (text) => text.replace(/^export (declare )?/, '').replace(/^declare /, '');

// The statement's own line(s): bodies and members left out of classes, interfaces, namespaces.
function headerOf(st, sf) {
  if (ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st)) {
    const tp = st.typeParameters ? `<${st.typeParameters.map((p) => print(p, sf)).join(', ')}>` : '';
    const heritage = (st.heritageClauses ?? []).map((h) => print(h, sf)).join(' ');
    const abs = hasModifier(st, ts.SyntaxKind.AbstractKeyword) ? 'abstract ' : '';
    return `${abs}${ts.isClassDeclaration(st) ? 'class' : 'interface'} ${st.name.text}${tp}${heritage ? ' ' + heritage : ''}`;
  }
  if (ts.isModuleDeclaration(st)) return `namespace ${st.name.text}`;
  return noExport(print(st, sf));
}

// `code` as an inline code span (a longer fence when the text holds backticks).
function inlineCode(text) {
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  return fence.length > 1 ? `${fence} ${text} ${fence}` : `\`${text}\``;
}

// Doc comment text as Markdown: `<` outside code spans escaped (Promise<T> is not an HTML tag).
function docMarkdown(doc) {
  return doc.split(/(`[^`\n]*`)/).map((part, i) => (i % 2 ? part : part.replace(/</g, '&lt;'))).join('');
}

function indent(text, by) {
  return text.split('\n').map((l) => (l ? by + l : l)).join('\n');
}

// One list entry per public member of a class, interface or namespace body.
function memberEntries(members, sf, prefix = '') {
  const out = [];
  for (const m of members) {
    if (ts.isModuleDeclaration(m) || ts.isInterfaceDeclaration(m) || ts.isTypeAliasDeclaration(m) || ts.isClassDeclaration(m)) {
      // namespace members: interfaces and types, printed whole
      const doc = docOf(m);
      let entry = `- ${inlineCode(prefix + m.name.text)} (${kindOf(m)})\n\n${indent('```ts\n' + noExport(print(m, sf)) + '\n```', '  ')}`;
      if (doc) entry += `\n\n${indent(docMarkdown(doc), '  ')}`;
      out.push(entry);
      continue;
    }
    if (!isPublicMember(m)) continue;
    const doc = docOf(m);
    const sig = oneLine(print(m, sf)).replace(/;$/, '');
    out.push(`- ${inlineCode(sig)}${doc ? '\n\n' + indent(docMarkdown(doc), '  ') : ''}`);
  }
  return out;
}

function sourcePath(dtsFile) {
  const rel = posix.relative(OUT, dtsFile).replace(/\.d\.ts$/, '.ts');
  return `npm/src/${rel}`;
}

// The page's section of one export: `found` = Declarations.find()'s {file, decls}.
function section({ name, local }, { file, decls: sts }) {
  const sf = sts[0].getSourceFile();
  const kinds = [...new Set(sts.map(kindOf))];
  const src = sourcePath(file);
  const lines = [`### ${name}`, ''];
  const alias = local !== name ? `, declared as ${inlineCode(local)}` : '';
  lines.push(`${kinds.join(' + ')} in [${src}](../${src})${alias}`, '');
  const docs = [];
  const headers = [];
  const members = [];
  for (const st of sts) {
    headers.push(headerOf(st, sf));
    const doc = docOf(st);
    if (doc) docs.push(doc);
    if (ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st)) members.push(...memberEntries(st.members, sf));
    else if (ts.isModuleDeclaration(st) && st.body && ts.isModuleBlock(st.body)) members.push(...memberEntries(st.body.statements, sf, `${name}.`));
  }
  lines.push('```ts', headers.join('\n'), '```', '');
  for (const d of docs) lines.push(docMarkdown(d), '');
  if (members.length) lines.push(...members.flatMap((m) => [m, '']));
  return lines.join('\n');
}

// The type names a declaration mentions (type references, heritage clauses, typeof queries).
function referencedNames(node, out = new Set()) {
  const visit = (n) => {
    let id = null;
    if (ts.isTypeReferenceNode(n)) id = n.typeName;
    else if (ts.isExpressionWithTypeArguments(n)) id = n.expression;
    else if (ts.isTypeQueryNode(n)) id = n.exprName;
    while (id && (ts.isQualifiedName(id) || ts.isPropertyAccessExpression(id))) id = ts.isQualifiedName(id) ? id.left : id.expression;
    if (id && ts.isIdentifier(id)) out.add(id.text);
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

// The package's own types that exported signatures mention but the entry does not export (such as
// env's Env): listed too, so every name on the page is explained on it. Transitive; in order of
// first mention.
function unexportedReferences(decls, sections) {
  const exported = new Set(sections.map((s) => `${s.found.file}#${s.found.local}`));
  const out = [];
  const seen = new Set();
  const queue = sections.map((s) => s.found);
  while (queue.length) {
    const { file, decls: sts } = queue.shift();
    for (const name of sts.flatMap((st) => [...referencedNames(st)])) {
      const at = decls.lookup(file, name);
      if (!at) continue;
      const found = { ...decls.find(at.file, at.local), local: at.local };
      const key = `${found.file}#${found.local}`;
      if (exported.has(key) || seen.has(key)) continue;
      seen.add(key);
      out.push({ entry: { name: found.local, local: found.local }, found });
      queue.push(found);
    }
  }
  return out;
}

export function generate() {
  const decls = new Declarations(emitDeclarations());
  const entry = `${OUT}/index.d.ts`;
  const exported = decls.exportsOf(entry);
  const sections = [];
  for (const e of exported) {
    if (sections.some((s) => s.entry.name === e.name)) continue;
    sections.push({ entry: e, found: { ...decls.find(e.file, e.local), local: e.local } });
  }
  const others = unexportedReferences(decls, sections);
  const render = (list) => list.map((s) => section(s.entry, s.found));
  const values = sections.filter((s) => !s.entry.typeOnly);
  const types = sections.filter((s) => s.entry.typeOnly);
  // Anchors as GitHub makes them, in page order (`env` and `Env` are #env and #env-1).
  const TITLES = ['API reference', 'Values', 'Types', 'Types the signatures name (not exported)'];
  const slugs = new Map();
  const used = new Map();
  const slug = (title, key = title) => {
    const base = title.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = used.get(base) ?? 0;
    used.set(base, n + 1);
    slugs.set(key, n ? `${base}-${n}` : base);
  };
  slug(TITLES[0]);
  slug(TITLES[1]);
  values.forEach((s) => slug(s.entry.name, s));
  slug(TITLES[2]);
  types.forEach((s) => slug(s.entry.name, s));
  slug(TITLES[3]);
  others.forEach((s) => slug(s.entry.name, s));
  const links = (list) => list.map((s) => `[${s.entry.name}](#${slugs.get(s)})`).join(', ');
  return [
    `# ${TITLES[0]}`,
    '',
    '<!-- Generated by scripts/gen_api_reference.mjs from npm/src: do not edit. -->',
    '',
    'Every export of the package `torch-ir-wasm` (its entry, `npm/src/index.ts`): the values, then the',
    'types, each in the order the entry exports them, with the signature its declarations (`index.d.ts`)',
    'give and its doc comment. Generated from the TypeScript by `node scripts/gen_api_reference.mjs`;',
    '`--check` (run by `npm/test/api_reference.test.mjs`) fails when this page is out of date. The',
    'overview with examples is [api.md](api.md); task pages are in [tasks/](tasks/).',
    '',
    `Values: ${links(values)}.`,
    '',
    `Types: ${links(types)}.`,
    '',
    ...(others.length ? [`Not exported, named by the signatures above: ${links(others)}.`, ''] : []),
    `## ${TITLES[1]}`,
    '',
    ...render(values),
    `## ${TITLES[2]}`,
    '',
    ...render(types),
    ...(others.length ? [
      `## ${TITLES[3]}`,
      '',
      'The package does not export these names; values of these types come from its functions',
      '(or are object literals a caller writes).',
      '',
      ...render(others),
    ] : []),
  ].join('\n').replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '\n');
}

function main(argv) {
  const t0 = performance.now();
  let text;
  try {
    text = generate();
  } catch (e) {
    console.error(`gen_api_reference: ${e.message}`);
    process.exit(2);
  }
  const rel = relative(REPO, PAGE);
  if (argv.includes('--check')) {
    let old = '';
    try { old = readFileSync(PAGE, 'utf8'); } catch { /* missing: stale */ }
    if (old !== text) {
      const a = old.split('\n');
      const b = text.split('\n');
      let i = 0;
      while (i < a.length && i < b.length && a[i] === b[i]) ++i;
      console.error(`${rel} is out of date with npm/src (first difference at line ${i + 1}:\n`
        + `  in the file: ${JSON.stringify(a[i] ?? '<end of file>')}\n  generated:   ${JSON.stringify(b[i] ?? '<end of file>')})\n`
        + 'run: node scripts/gen_api_reference.mjs');
      process.exit(1);
    }
    console.log(`${rel} is up to date (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  } else {
    writeFileSync(PAGE, text);
    console.log(`wrote ${rel} (${text.split('\n').length} lines, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
