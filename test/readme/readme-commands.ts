/**
 * The shell commands a README shows, read the way a person reads them: each fenced `sh`, `bash` or
 * `shell` block, line by line, a trailing backslash joining lines. A line's trailing comment says how
 * the command behaves when it does not simply run and finish:
 *
 * - `# needs <what>: <where it stops>`: it needs an account, the network or the reader's own values,
 *   and stops at that point without them. It is not run as written; when its missing values are
 *   settings (`NAME="https://<host>/api" command`), it is run without them and must refuse, naming each.
 * - `# keeps running ...`: a server (the sandbox, n8n); it is started, waited for, and stopped after the
 *   README's last command, as a reader leaves it open in a second terminal.
 *
 * A `<placeholder>` is a value the reader fills in: a command holding one cannot run as written, so it
 * must say what it needs. A comment-only line is the reader's note and is not run.
 *
 * Pure functions over text, so the unit tier checks every README's markers without starting anything;
 * commands.e2e.test.ts runs the commands.
 */

export interface ReadmeCommand {
  /** The README, relative to the repository root. */
  file: string;
  /** The line the command starts on (1-based). */
  line: number;
  /** The command as written, continuation lines joined, its trailing comment removed. */
  text: string;
  /** Its trailing comment without the `#`, or ''. */
  comment: string;
  /** The block it belongs to: commands of one block run in one shell session (cd and export carry on). */
  block: number;
}

export type Behaviour =
  | { kind: 'runs' }
  | { kind: 'needs'; what: string; stops: string }
  | { kind: 'keeps-running' };

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);

/** A value the reader fills in: `<service host>`, `<app name>`; never a redirection such as `< in.txt`. */
const PLACEHOLDER = /<[A-Za-z][^<>\n]*>/;

/** Where a trailing `#` comment starts outside quotes, or -1. */
function commentStart(line: string): number {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return i;
  }
  return -1;
}

/** Every command in the shell blocks of one README. */
export function commandsOf(file: string, markdown: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  const lines = markdown.split('\n');
  let fence: { marker: string; shell: boolean } | null = null;
  let block = 0;
  let pending: { line: number; parts: string[] } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const opening = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(raw);
    if (!fence) {
      if (opening) {
        fence = { marker: opening[1]!, shell: SHELL_LANGUAGES.has(opening[2]!.toLowerCase()) };
        block++;
      }
      continue;
    }
    if (opening && opening[1]!.startsWith(fence.marker) && !opening[2]) {
      fence = null;
      continue;
    }
    if (!fence.shell) continue;
    const trimmed = raw.trim();
    if (!pending && (!trimmed || trimmed.startsWith('#'))) continue;
    const joined = trimmed.endsWith('\\') && commentStart(trimmed) < 0;
    const part = joined ? trimmed.slice(0, -1).trimEnd() : trimmed;
    pending ??= { line: i + 1, parts: [] };
    pending.parts.push(part);
    if (joined) continue;
    const whole = pending.parts.join(' ');
    const at = commentStart(whole);
    commands.push({
      file,
      line: pending.line,
      text: (at < 0 ? whole : whole.slice(0, at)).trim(),
      comment: at < 0 ? '' : whole.slice(at + 1).trim(),
      block,
    });
    pending = null;
  }
  return commands;
}

/** How a command behaves, from its trailing comment. */
export function behaviourOf(command: ReadmeCommand): Behaviour {
  const needs = /^needs (.+?): (.+)$/.exec(command.comment);
  if (needs) return { kind: 'needs', what: needs[1]!, stops: needs[2]! };
  if (/^keeps running\b/.test(command.comment)) return { kind: 'keeps-running' };
  return { kind: 'runs' };
}

/**
 * The settings a command is given as `NAME=value` before it whose value is a placeholder: what the
 * reader must supply. `without` is the command with those settings left out, as a reader who skipped
 * them would run it (empty for an `export` line, which runs nothing).
 */
export function placeholderSettings(text: string): { names: string[]; without: string } {
  const names: string[] = [];
  const exported = /^export\s/.test(text);
  let rest = text.replace(/^export\s+/, '');
  const kept: string[] = [];
  for (;;) {
    const m = /^([A-Z][A-Z0-9_]*)=("[^"]*"|'[^']*'|\S*)\s*/.exec(rest);
    if (!m) break;
    if (PLACEHOLDER.test(m[2]!)) names.push(m[1]!);
    else kept.push(m[0].trim());
    rest = rest.slice(m[0].length);
  }
  return { names, without: exported ? '' : [...kept, rest].join(' ') };
}

/**
 * What is wrong with a command's marker, or null: a command a reader cannot run as written (it holds a
 * placeholder) must say what it needs and where it stops.
 */
export function markerProblem(command: ReadmeCommand): string | null {
  const behaviour = behaviourOf(command);
  if (PLACEHOLDER.test(command.text) && behaviour.kind !== 'needs')
    return `${command.file}:${command.line} \`${command.text}\` holds a placeholder, so it cannot run as written: end it with "# needs <what>: <where it stops without it>"`;
  if (readyLineOf(command.text) && behaviour.kind !== 'keeps-running')
    return `${command.file}:${command.line} \`${command.text}\` does not finish by itself: end it with "# keeps running: <what it serves>"`;
  if (behaviour.kind === 'needs' && behaviour.stops.trim().length < 8)
    return `${command.file}:${command.line} says what it needs but not where it stops`;
  return null;
}

/** `npm ci`, first or alone: the fresh clone the commands run in has had it (see commands.e2e.test.ts). */
export function withoutNpmCi(text: string): string {
  return text.replace(/^npm ci(\s*&&\s*|\s*$)/, '');
}

/**
 * How the runner knows a server it started is up: the line it prints once it serves. A `keeps running`
 * command missing here fails the unit test, so a new one cannot slip through unwaited.
 */
const READY_LINES: ReadonlyArray<{ command: RegExp; ready: RegExp }> = [
  { command: /^npm start\b/, ready: /Base URL\s+http:\/\/127\.0\.0\.1:\d+\/api/ },
  { command: /^npm run n8n$/, ready: /n8n editor\s+http:\/\/\S+/ },
];

export const readyLineOf = (text: string): RegExp | undefined =>
  READY_LINES.find(({ command }) => command.test(text))?.ready;
