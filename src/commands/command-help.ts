// The people's subcommands: their names and help texts (no imports, so `editguard --help` loads nothing else).

export const COMMAND_NAMES = ['history', 'diff', 'restore'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

const COMMON = `  --state-dir DIR   the state dir the servers use (default: $XDG_STATE_HOME/editguard or ~/.local/state/editguard)
  --config FILE     a server config file: its stateDir and limits apply
  --json            machine-readable output on stdout (errors too, as {"error": {code, message}})
  -h, --help`;

/** `editguard COMMAND --help`; the first line of each is its summary in `editguard --help`. */
export const COMMAND_HELP: Readonly<Record<CommandName, string>> = {
  history: `editguard history [FILE] — recent writes across files, or one file's versions

Usage: editguard history [options] [FILE]

Without FILE: the latest changes editguard recorded across every file of the state dir, newest
first, with time, tool, session, lines added/removed, size and file. A change of several files
(ApplyPatch, or the undo of one) is one entry: its change id, then a line per file. With FILE:
every version of that file, and whether it is still the latest one or was changed outside
editguard since.

  -n, --limit N     without FILE: show at most N changes (default 20)
${COMMON}
`,
  diff: `editguard diff FILE V1 [V2] — what changed between two versions, or since a version

Usage: editguard diff [options] FILE V1 [V2]

A unified diff from version V1 to version V2 or, without V2, to the file as it is now (so
\`editguard diff FILE V\` shows what restoring V would undo). Coloured on a terminal. Nothing is
printed when the two are byte-identical; binary content is described by size.

${COMMON}
`,
  restore: `editguard restore FILE VERSION — put a recorded version back (or --change ID: undo a change)

Usage: editguard restore [options] FILE VERSION | --change ID

Writes the version's exact bytes (or deletes the file if it did not exist then) through the same
write path and rules as the RestoreFile tool: atomic, and recorded as a new version, so a restore
can itself be undone. Safe while editguard servers use the same state dir.
--change ID (an id \`editguard history\` lists) undoes a whole change: every file it wrote goes
back to its version before it, as one new change — all files or none.
If the file was changed outside editguard since its latest recorded version, it asks first on a
terminal; without a terminal it refuses unless --force (the current content is saved as a version
first either way). Protected paths (.git/**, shell start-up files, …) ask likewise.

  --change ID       undo every file of change ID instead of restoring one file
  --force           restore without asking
${COMMON}
`,
};
