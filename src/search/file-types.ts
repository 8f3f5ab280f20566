// Grep's `type` parameter: ripgrep's file-type names (a common subset) mapped to file-name globs.
import picomatch from 'picomatch';
import { ToolError } from '../errors.js';

/** Type name → globs on the file name (ripgrep's names and aliases; `rg --type-list` has the full table). */
const FILE_TYPES: Record<string, readonly string[]> = {
  asm: ['*.asm', '*.s', '*.S'],
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  clojure: ['*.clj', '*.cljc', '*.cljs', '*.cljx'],
  cmake: ['*.cmake', 'CMakeLists.txt'],
  cpp: [
    '*.[ChH]',
    '*.cc',
    '*.[ch]pp',
    '*.[ch]xx',
    '*.hh',
    '*.inl',
    '*.[ChH].in',
    '*.cc.in',
    '*.[ch]pp.in',
    '*.[ch]xx.in',
    '*.hh.in',
  ],
  cs: ['*.cs'],
  css: ['*.css', '*.scss'],
  csv: ['*.csv'],
  dart: ['*.dart'],
  docker: ['*Dockerfile*'],
  elisp: ['*.el'],
  elixir: ['*.ex', '*.eex', '*.exs', '*.heex', '*.leex'],
  erlang: ['*.erl', '*.hrl'],
  fsharp: ['*.fs', '*.fsx', '*.fsi'],
  go: ['*.go'],
  gradle: ['*.gradle', '*.gradle.kts'],
  graphql: ['*.graphql', '*.graphqls'],
  groovy: ['*.groovy', '*.gradle'],
  haskell: ['*.hs', '*.lhs', '*.cpphs', '*.c2hs', '*.hsc'],
  html: ['*.htm', '*.html', '*.ejs'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.js', '*.jsx', '*.vue', '*.cjs', '*.mjs'],
  json: ['*.json', 'composer.lock', '*.sarif'],
  jsonl: ['*.jsonl'],
  julia: ['*.jl'],
  jupyter: ['*.ipynb', '*.jpynb'],
  kotlin: ['*.kt', '*.kts'],
  less: ['*.less'],
  lua: ['*.lua'],
  make: [
    '[Gg][Nn][Uu]makefile',
    '[Mm]akefile',
    '[Gg][Nn][Uu]makefile.am',
    '[Mm]akefile.am',
    '[Gg][Nn][Uu]makefile.in',
    '[Mm]akefile.in',
    '*.mk',
    '*.mak',
  ],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
  nix: ['*.nix'],
  objc: ['*.h', '*.m'],
  objcpp: ['*.h', '*.mm'],
  ocaml: ['*.ml', '*.mli', '*.mll', '*.mly'],
  perl: ['*.perl', '*.pl', '*.PL', '*.plh', '*.plx', '*.pm', '*.t'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.php7', '*.php8', '*.pht', '*.phtml'],
  powershell: ['*.ps1', '*.psm1', '*.psd1', '*.ps1xml', '*.pssc', '*.psc1'],
  protobuf: ['*.proto'],
  py: ['*.py', '*.pyi'],
  python: ['*.py', '*.pyi'],
  r: ['*.R', '*.r', '*.Rmd', '*.Rnw'],
  rst: ['*.rst'],
  ruby: ['Gemfile', '*.gemspec', '.irbrc', 'Rakefile', '*.rb'],
  rust: ['*.rs'],
  sass: ['*.sass', '*.scss'],
  scala: ['*.scala', '*.sbt'],
  sh: [
    '*.bash',
    '*.bashrc',
    '.bash_login',
    '.bash_logout',
    '.bash_profile',
    '*.csh',
    '.cshrc',
    '*.ksh',
    '.kshrc',
    '*.sh',
    '*.tcsh',
    '*.zsh',
    '.zshenv',
    '.zlogin',
    '.zlogout',
    '.zprofile',
    '.zshrc',
  ],
  sql: ['*.sql', '*.psql'],
  svelte: ['*.svelte'],
  swift: ['*.swift'],
  tex: ['*.tex', '*.ltx', '*.cls', '*.sty', '*.bib', '*.dtx', '*.ins'],
  tf: ['*.tf', '*.tfvars'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  typescript: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  txt: ['*.txt'],
  vim: ['*.vim', '.vimrc', '.gvimrc', 'vimrc', 'gvimrc', '_vimrc', '_gvimrc'],
  vue: ['*.vue'],
  xml: ['*.xml', '*.xml.dist', '*.dtd', '*.xsl', '*.xslt', '*.xsd', '*.xjb', '*.rng', '*.sch', '*.xhtml'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
};

/**
 * The globs of a ripgrep type name (case-sensitive, as in ripgrep).
 * @throws ToolError INVALID_INPUT naming the known types when the name is unknown.
 */
export function fileTypeGlobs(name: string): readonly string[] {
  const globs = Object.hasOwn(FILE_TYPES, name) ? FILE_TYPES[name] : undefined;
  if (globs === undefined) {
    throw new ToolError(
      'INVALID_INPUT',
      `Unknown file type "${name}". Use one of: ${Object.keys(FILE_TYPES).join(', ')}; or filter with "glob" instead.`,
      { type: name },
    );
  }
  return globs;
}

/** A test on a file's base name for a type's globs. */
export function fileTypeMatcher(globs: readonly string[]): (baseName: string) => boolean {
  return picomatch([...globs], { dot: true });
}
