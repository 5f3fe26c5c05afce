// A `when:` comparison (`outputs.extract.rows > 0`, `params.region == "eu"`): parsed at apply,
// with a message that says what to write, and evaluated just before the task starts against the
// environment it would get (params.X reads AX_PARAM_X, outputs.T.K reads AX_OUTPUT_T_K), so the
// comparison sees exactly what the task would. Pure.
import { envNamePart, paramEnvName } from '../../api/params.ts';
import { because, type Reason } from '../../api/reasons.ts';

export const CONDITION_OPS = ['==', '!=', '<=', '>=', '<', '>'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

export type Operand =
  | { kind: 'param'; name: string }
  | { kind: 'output'; task: string; key: string }
  | { kind: 'literal'; value: string; number: boolean };

export interface Comparison {
  left: Operand;
  op: ConditionOp;
  right: Operand;
}

const PARAM = /^params\.([A-Za-z0-9_-]+)$/;
const OUTPUT = /^outputs\.([A-Za-z0-9][A-Za-z0-9_.-]*)\.([A-Za-z0-9_-]+)$/;
const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const OPERAND_HINT = 'write params.NAME, outputs.TASK.KEY, a number, "text" in quotes, true or false';

/** The environment variable an operand reads (none for a literal). */
export function operandVariable(o: Operand): string | undefined {
  if (o.kind === 'param') return paramEnvName(o.name);
  if (o.kind === 'output') return `AX_OUTPUT_${envNamePart(o.task)}_${envNamePart(o.key)}`;
  return undefined;
}

/** How an operand is written, for reasons. */
export function operandText(o: Operand): string {
  if (o.kind === 'param') return `params.${o.name}`;
  if (o.kind === 'output') return `outputs.${o.task}.${o.key}`;
  return o.number ? o.value : JSON.stringify(o.value);
}

function tokens(text: string): string[] | string {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return `the string starting at character ${i + 1} has no closing ${c}`;
      out.push(text.slice(i, end + 1));
      i = end + 1;
    } else if ('=!<>'.includes(c)) {
      let j = i;
      while (j < text.length && '=!<>'.includes(text[j] as string)) j++;
      out.push(text.slice(i, j));
      i = j;
    } else {
      let j = i;
      while (j < text.length && !/[\s=!<>"']/.test(text[j] as string)) j++;
      out.push(text.slice(i, j));
      i = j;
    }
  }
  return out;
}

function operand(token: string): Operand | string {
  const q = token[0];
  if (q === '"' || q === "'") return { kind: 'literal', value: token.slice(1, -1), number: false };
  if (NUMBER.test(token)) return { kind: 'literal', value: token, number: true };
  if (token === 'true' || token === 'false') return { kind: 'literal', value: token, number: false };
  const p = PARAM.exec(token);
  if (p) return { kind: 'param', name: p[1] as string };
  const o = OUTPUT.exec(token);
  if (o) return { kind: 'output', task: o[1] as string, key: o[2] as string };
  if (token.startsWith('params.') || token.startsWith('outputs.'))
    return `"${token}" is not a reference: params.NAME takes one name, outputs.TASK.KEY a task and a key`;
  return `"${token}" is not something to compare: ${OPERAND_HINT} (quote text: "${token}")`;
}

/** The comparison an expression writes, or what is wrong with it. */
export function parseComparison(text: string): Comparison | { error: string } {
  const form = `write LEFT OP RIGHT, e.g. outputs.extract.rows > 0 or params.region == "eu", with OP one of ${CONDITION_OPS.join(' ')}`;
  const t = tokens(text);
  if (typeof t === 'string') return { error: t };
  if (t.length === 0) return { error: `the comparison is empty: ${form}` };
  if (t.length !== 3) return { error: `"${text}" is not one comparison: ${form}` };
  const [l, op, r] = t as [string, string, string];
  if (!(CONDITION_OPS as readonly string[]).includes(op))
    return { error: `"${op}" is not a comparison operator: use one of ${CONDITION_OPS.join(' ')}` };
  const left = operand(l);
  if (typeof left === 'string') return { error: left };
  const right = operand(r);
  if (typeof right === 'string') return { error: right };
  if (left.kind === 'literal' && right.kind === 'literal')
    return { error: `"${text}" compares two constants: one side must be params.NAME or outputs.TASK.KEY` };
  return { left, op: op as ConditionOp, right };
}

/** The references a comparison makes (checked at apply against the task's upstreams and the workflow's params). */
export function references(c: Comparison): Operand[] {
  return [c.left, c.right].filter((o) => o.kind !== 'literal');
}

const asNumber = (s: string): number | undefined => (NUMBER.test(s.trim()) ? Number(s) : undefined);

/**
 * Whether the comparison holds in the task's environment; when it does not, why (each reference
 * with its value, or that it was missing: a missing value compares as "").
 */
export function evaluateComparison(
  c: Comparison,
  env: Readonly<Record<string, string | undefined>>,
): { holds: true } | ({ holds: false } & Reason) {
  const missing: { reference: string; variable: string }[] = [];
  const value = (o: Operand): string => {
    const name = operandVariable(o);
    if (name === undefined) return o.kind === 'literal' ? o.value : '';
    const v = env[name];
    if (v === undefined) missing.push({ reference: operandText(o), variable: name });
    return v ?? '';
  };
  const l = value(c.left);
  const r = value(c.right);
  const ln = asNumber(l);
  const rn = asNumber(r);
  const cmp = ln !== undefined && rn !== undefined ? Math.sign(ln - rn) : l < r ? -1 : l > r ? 1 : 0;
  const holds = {
    '==': cmp === 0,
    '!=': cmp !== 0,
    '<': cmp < 0,
    '<=': cmp <= 0,
    '>': cmp > 0,
    '>=': cmp >= 0,
  }[c.op];
  if (holds) return { holds: true };
  const shown = references(c)
    .map((o) => `${operandText(o)} = ${JSON.stringify(o === c.left ? l : r)}`)
    .join(', ');
  const condition = `${operandText(c.left)} ${c.op} ${operandText(c.right)}`;
  const [first, second] = missing;
  // The missing references as arguments (not English phrases), so the UI can say them in its language.
  if (second && first)
    return {
      holds: false,
      ...because('when_false_missing_both', {
        condition,
        reference: first.reference,
        variable: first.variable,
        reference2: second.reference,
        variable2: second.variable,
        values: shown,
      }),
    };
  if (first) return { holds: false, ...because('when_false_missing', { condition, ...first, values: shown }) };
  return { holds: false, ...because('when_false', { condition, values: shown }) };
}
