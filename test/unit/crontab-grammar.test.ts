// crontab(5) as Vixie cron reads it: comments, assignments, the five fields and their sets, the
// @ nicknames, the system crontab's user column, and cron's `%` rules for the command.
import { describe, expect, test } from 'vitest';
import {
  type CrontabLine,
  parseCrontab,
  parseSchedule,
  splitCommand,
} from '../../engine/core/import/crontab-grammar.ts';

const one = (text: string, system = false): CrontabLine => {
  const [line] = parseCrontab(text, system);
  if (!line) throw new Error('no line');
  return line;
};
const job = (text: string, system = false) => {
  const line = one(text, system);
  if (line.kind !== 'job') throw new Error(`not a job: ${JSON.stringify(line)}`);
  return line;
};
const error = (text: string) => {
  const line = one(text);
  if (line.kind !== 'error') throw new Error(`not an error: ${JSON.stringify(line)}`);
  return line.reason;
};
const range = (a: number, b: number, step = 1) =>
  Array.from({ length: Math.floor((b - a) / step) + 1 }, (_, i) => a + i * step);

describe('lines', () => {
  test('blank lines, comments after leading blanks, and line numbers', () => {
    const lines = parseCrontab('\n \t\n\t  # a comment\n0 1 * * * x\n', false);
    expect(lines.map((l) => [l.line, l.kind])).toEqual([
      [1, 'blank'],
      [2, 'blank'],
      [3, 'comment'],
      [4, 'job'],
    ]);
  });

  test.each([
    ['NAME=value', 'NAME', 'value'],
    ['NAME = value', 'NAME', 'value'],
    ['GREETING = hello world  ', 'GREETING', 'hello world'],
    ['QUOTED="  two spaces  "', 'QUOTED', '  two spaces  '],
    ['SINGLE=\'it is = "fine"\'', 'SINGLE', 'it is = "fine"'],
    ['URL=https://x.example/a?b=c&d=e', 'URL', 'https://x.example/a?b=c&d=e'],
    ['EMPTY=', 'EMPTY', ''],
    ['MAILTO=""', 'MAILTO', ''],
    ['  PATH=/usr/bin:/bin', 'PATH', '/usr/bin:/bin'],
    ['X=a"b"', 'X', 'a"b"'],
  ])('assignment %s', (text, name, value) => {
    expect(one(text)).toMatchObject({ kind: 'env', name, value });
  });

  test('text after a closing quote makes it no assignment, and no job either', () => {
    expect(one('A="x" y').kind).toBe('error');
    expect(one('A="unclosed').kind).toBe('error');
  });

  test('an assignment-looking command stays a job', () => {
    expect(job('0 * * * * FOO=bar /bin/run')).toMatchObject({ command: 'FOO=bar /bin/run' });
  });
});

describe('time fields', () => {
  test('spaces or tabs between the fields; the command keeps its own spacing', () => {
    const j = job('0\t3 \t*\t*   *\t/usr/bin/x  --a\tb');
    expect(j.fields).toEqual(['0', '3', '*', '*', '*']);
    expect(j.command).toBe('/usr/bin/x  --a\tb');
  });

  test('ranges, steps and lists', () => {
    const s = parseSchedule(['5-55/10', '0-23/2', '1,15', '*/3', '1-5']);
    if (typeof s === 'string') throw new Error(s);
    expect(s.minutes).toEqual(range(5, 55, 10));
    expect(s.hours).toEqual(range(0, 22, 2));
    expect(s.doms).toEqual([1, 15]);
    expect(s.months).toEqual([1, 4, 7, 10]);
    expect(s.dows).toEqual([1, 2, 3, 4, 5]);
  });

  test('names in any case, in ranges and lists, with steps (cron accepts what its man page says it does not)', () => {
    const s = parseSchedule(['0', '9', '*', 'JAN-Mar,oct', 'Mon-FRI/2']);
    if (typeof s === 'string') throw new Error(s);
    expect(s.months).toEqual([1, 2, 3, 10]);
    expect(s.dows).toEqual([1, 3, 5]);
  });

  test('0 and 7 are both Sunday', () => {
    for (const dow of ['0', '7', 'sun', '0,7', '6-7']) {
      const s = parseSchedule(['0', '0', '*', '*', dow]);
      if (typeof s === 'string') throw new Error(s);
      expect(s.dows).toContain(0);
      expect(s.dows).not.toContain(7);
    }
  });

  test('star flags: a field starting with * (`*/2` too), as cron records them', () => {
    const s = parseSchedule(['*/5', '2', '*/2', '*', '1']);
    if (typeof s === 'string') throw new Error(s);
    expect([s.minStar, s.hourStar, s.domStar, s.dowStar]).toEqual([true, false, true, false]);
  });

  test.each([
    ['*/0 * * * * x', 'minute field "*/0": a step must be 1 or more'],
    ['60 * * * * x', 'minute field "60": 60 is out of range: use 0-59'],
    ['0 24 * * * x', 'hour field "24": 24 is out of range: use 0-23'],
    ['0 0 0 * * x', 'day-of-month field "0": 0 is out of range: use 1-31'],
    ['0 0 * 13 * x', 'month field "13": 13 is out of range: use 1-12 or jan-dec'],
    ['0 0 * * 8 x', 'day-of-week field "8": 8 is out of range: use 0-7 or sun-sat'],
    ['0 0 * * monday x', 'day-of-week field "monday": "monday" is neither a number nor a name'],
    ['0 5-3 * * * x', 'the range 5-3 runs backwards (cron would never run the line)'],
    ['5/10 * * * * x', 'a step needs a range or * before it'],
    ['0 0 L * * x', 'day-of-month field "L": "L" is not a number'],
    ['0 0 * * 1#2 x', 'day-of-week field "1#2"'],
    ['0 0 * * ? x', 'day-of-week field "?"'],
    ['0 0 * * x', 'day-of-week field "x"'],
    ['0 0 * *', 'this one has 4 fields and then ends'],
    ['@every x', '"@every" is no cron nickname'],
    ['@Daily x', '"@Daily" is no cron nickname'],
  ])('cron refuses %s', (text, message) => {
    expect(error(text)).toContain(message);
  });

  test.each([
    ['@yearly', ['0', '0', '1', '1', '*']],
    ['@annually', ['0', '0', '1', '1', '*']],
    ['@monthly', ['0', '0', '1', '*', '*']],
    ['@weekly', ['0', '0', '*', '*', '0']],
    ['@daily', ['0', '0', '*', '*', '*']],
    ['@midnight', ['0', '0', '*', '*', '*']],
    ['@hourly', ['0', '*', '*', '*', '*']],
  ])('%s', (nickname, fields) => {
    const j = job(`${nickname}\t/bin/x`);
    expect(j).toMatchObject({ nickname, fields, command: '/bin/x' });
    expect(j.sets).toEqual(parseSchedule(fields));
  });

  test('@reboot has no time fields', () => {
    const j = job('@reboot /usr/bin/start');
    expect(j.nickname).toBe('@reboot');
    expect(j.fields).toBeUndefined();
    expect(j.sets).toBeUndefined();
  });

  test('the system crontab: a user column after the fields, also after a nickname', () => {
    expect(job('17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly', true)).toMatchObject({
      user: 'root',
      command: 'cd / && run-parts --report /etc/cron.hourly',
    });
    expect(job('@daily www-data /bin/x', true)).toMatchObject({ user: 'www-data', command: '/bin/x' });
    expect(one('0 0 * * * root', true)).toMatchObject({ kind: 'error', reason: expect.stringContaining('no command') });
  });
});

describe('% in the command', () => {
  test.each([
    ['plain', { command: 'plain' }],
    [
      'mail -s hi joe%Joe,%%Where are your kids?%',
      { command: 'mail -s hi joe', stdin: 'Joe,\n\nWhere are your kids?\n' },
    ],
    ['date +\\%Y-\\%m-\\%d >> /tmp/log', { command: 'date +%Y-%m-%d >> /tmp/log' }],
    ['cat%100\\% sure', { command: 'cat', stdin: '100% sure' }],
    ['a%', { command: 'a', stdin: '' }],
    ['echo \\\\%in', { command: 'echo \\\\', stdin: 'in' }],
    ['echo \\n x', { command: 'echo \\n x' }],
    ['cat%a\\b', { command: 'cat', stdin: 'a\\b' }],
    ['cat%end\\', { command: 'cat', stdin: 'end\\' }],
  ])('%s', (raw, expected) => {
    expect(splitCommand(raw)).toEqual(expected);
  });
});
