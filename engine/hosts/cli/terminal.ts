// The CLI's output boundary: every string written to stdout or stderr (console.log, tables, log
// lines, `ax: ...` errors, commander's own messages, --json) passes terminalSafe, so no command,
// present or future, can print a workflow's, a task's, the store's or the network's text raw.
// One guard on the two streams rather than a call at each print: a print that forgot the call
// would be a hole.
//
// --json stays valid JSON with the same values (see engine/core/model/terminal-text.ts): a script
// reading it gets U+202E back from "\u202e" as JSON.parse decodes it; only a person reading the
// JSON raw sees the escape. \n is kept: it ends the CLI's own lines; single values that must not
// start a line (table cells) are escaped before they reach the stream.
import { parseDocument, visit } from 'yaml';
import { hasUnsafeText, terminalSafe } from '../../core/model/terminal-text.ts';

const guarded = new WeakSet<NodeJS.WriteStream>();

/** Makes process.stdout and process.stderr escape what a terminal would act on. */
export function guardTerminalOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    // Strings only: the CLI writes no bytes of its own; a Buffer would be someone's deliberate raw output.
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(typeof chunk === 'string' ? terminalSafe(chunk, true) : chunk, ...rest)) as typeof stream.write;
  }
}

/**
 * A YAML text (`ax export`) whose strings holding characters the guard escapes are
 * double-quoted, where `\u202e` is an escape rather than six characters: so `ax export W > f.yaml`
 * still gives back W's exact text. Text with nothing to escape is returned as is.
 */
export function yamlForTerminal(text: string): string {
  if (terminalSafe(text, true) === text) return text;
  const doc = parseDocument(text);
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && hasUnsafeText(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
