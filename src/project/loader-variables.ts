/**
 * Environment variables that make a program load or run other code than the one named
 * (a preload, a library path, a startup file, git configuration): the ones a command line or
 * an MCP server's `env` can hide a program in.
 */

const LOADERS = new Set([
  'NODE_OPTIONS',
  'NODE_PATH',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PYTHONINSPECT',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'RUBYOPT',
  'RUBYLIB',
  'BASH_ENV',
  'ENV',
  'ZDOTDIR',
  'PROMPT_COMMAND',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'CLASSPATH',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_EXEC_PATH',
  'GIT_DIR',
  'GIT_TEMPLATE_DIR',
  'PAGER',
  'EDITOR',
  'VISUAL',
  'LESSOPEN',
  'LESSCLOSE',
  'PATH',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'HOME',
  'XDG_CONFIG_HOME',
  'GIT_PROXY_COMMAND',
  'GIT_SEQUENCE_EDITOR',
  'MANPAGER',
  'BROWSER',
  'CC',
  'CXX',
  'GOFLAGS',
  'GOTOOLCHAIN',
  'GOENV',
  'RUSTC',
  'RUSTC_WRAPPER',
  'GCONV_PATH',
  'PYTHONWARNINGS',
  'PYTHONUSERBASE',
  'PYTHONBREAKPOINT',
  'GEM_PATH',
  'GEM_HOME',
  'BUNDLE_GEMFILE',
  'LUA_INIT',
  'LUA_PATH',
  'PERL5DB',
]);

/**
 * Whether setting this variable can make a program load or run code other than the one it
 * names: NODE_OPTIONS, LD_PRELOAD, LD_LIBRARY_PATH, DYLD_*, PYTHONPATH, PERL5OPT, RUBYOPT,
 * BASH_ENV, JAVA_TOOL_OPTIONS, GIT_CONFIG_*, CARGO_*, PATH, HOME (where configuration is read), CC...
 */
export function isLoaderVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return LOADERS.has(upper) || upper.startsWith('DYLD_') || upper.startsWith('GIT_CONFIG') || upper.startsWith('NPM_CONFIG_') || upper.startsWith('CARGO_');
}
