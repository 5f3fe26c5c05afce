// The cron layer checked against an independent implementation, croner (a devDependency): over
// generated expressions, zones and start instants, both give the same fire times away from DST
// changes. Around a change they differ on purpose, in the ways the last tests pin down (croner
// follows Vixie cron's "fixed-time vs interval job" split; AX keeps the rules of cron-walk.ts).
import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { firesBetween, nextFire } from '../../engine/core/model/cron.ts';
import { utcOffsetMs } from '../../engine/core/model/cron-walk.ts';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/St_Johns',
  'America/Santiago',
  'America/Havana',
  'Australia/Lord_Howe',
  'Australia/Adelaide',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Tehran',
  'Pacific/Chatham',
  'Antarctica/Troll',
  'Africa/Casablanca',
  'Pacific/Apia',
];

/** A small seeded PRNG (mulberry32), so a failure names a case that can be run again. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function field(r: () => number, min: number, max: number, allowStar = true): string {
  const n = () => min + Math.floor(r() * (max - min + 1));
  const kind = Math.floor(r() * 6);
  if (kind === 0 && allowStar) return '*';
  if (kind === 1) return String(n());
  if (kind === 2) {
    const [a, b] = [n(), n()].sort((x, y) => x - y);
    return `${a}-${b}`;
  }
  if (kind === 3) return `*/${1 + Math.floor(r() * Math.min(15, max - min))}`;
  if (kind === 4) return [...new Set([n(), n(), n()])].sort((x, y) => x - y).join(',');
  return String(n());
}

/** 6-field expressions; day fields mostly `*` so that most cases fire often enough to compare. */
function expression(r: () => number): string {
  const sec = r() < 0.7 ? '0' : field(r, 0, 59);
  const min = field(r, 0, 59);
  const hour = field(r, 0, 23);
  const dom = r() < 0.7 ? '*' : r() < 0.2 ? 'L' : field(r, 1, 28, false);
  const month = r() < 0.8 ? '*' : field(r, 1, 12, false);
  const dow = r() < 0.7 ? '*' : r() < 0.3 ? `${Math.floor(r() * 7)}#${1 + Math.floor(r() * 4)}` : field(r, 0, 6, false);
  return [sec, min, hour, dom, month, dow].join(' ');
}

/** Whether the zone's offset changes within 3 hours of t (the instants where the two may differ on purpose). */
const nearChange = (tz: string, t: number) => utcOffsetMs(tz, t - 3 * 3_600_000) !== utcOffsetMs(tz, t + 3 * 3_600_000);

function cronerFires(expr: string, tz: string, after: number, count: number): number[] {
  const job = new Cron(expr, { timezone: tz, paused: true });
  const out: number[] = [];
  let d: Date | null = new Date(after);
  while (out.length < count && (d = job.nextRun(d))) out.push(d.getTime());
  return out;
}

describe('cron fire times against croner', () => {
  it('agree over 300 generated expressions, zones and start instants, away from DST changes', () => {
    const r = rng(7);
    const from = Date.UTC(2024, 0, 1);
    const span = Date.UTC(2031, 0, 1) - from;
    const differences: string[] = [];
    for (let k = 0; k < 300; k++) {
      const expr = expression(r);
      const tz = ZONES[Math.floor(r() * ZONES.length)] as string;
      const start = from + Math.floor((r() * span) / 1000) * 1000;
      const theirs = cronerFires(expr, tz, start, 20);
      if (theirs.length === 0) continue;
      const until = theirs[theirs.length - 1] as number;
      const ours = firesBetween(expr, tz, start, until, 10_000);
      const a = ours.filter((t) => !nearChange(tz, t));
      const b = theirs.filter((t) => !nearChange(tz, t));
      if (a.join() !== b.join()) {
        const first = a.findIndex((t, i) => t !== b[i]);
        differences.push(
          `#${k} "${expr}" ${tz} after ${new Date(start).toISOString()}: ours ${new Date(a[first] ?? NaN).toISOString()} croner ${new Date(b[first] ?? NaN).toISOString()}`,
        );
      }
      // nextFire from the start agrees with the walk, too
      if (ours[0] !== undefined) expect(nextFire(expr, tz, start)).toBe(ours[0]);
    }
    expect(differences).toEqual([]);
  });

  // Where the two differ on purpose. Berlin: 2026-10-25 03:00 CEST → 02:00 CET (01:00Z);
  // 2026-03-29 02:00 CET → 03:00 CEST (01:00Z).
  const both = (expr: string, tz: string, from: string, until: string) => {
    const theirs = cronerFires(expr, tz, Date.parse(from), 50).filter((t) => t <= Date.parse(until));
    const ours = firesBetween(expr, tz, Date.parse(from), Date.parse(until), 50);
    const iso = (l: number[]) => l.map((t) => new Date(t).toISOString().slice(11, 16));
    return { ours: iso(ours), croner: iso(theirs) };
  };

  it('agree where both rules meet: a fixed time in the repeated hour fires once; an hourly cron fires every real hour', () => {
    expect(both('30 2 * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z', '2026-10-25T04:00:00Z')).toEqual({
      ours: ['00:30'],
      croner: ['00:30'],
    });
    const hourly = ['00:00', '01:00', '02:00', '03:00'];
    expect(both('0 * * * *', 'Europe/Berlin', '2026-10-24T23:30:00Z', '2026-10-25T03:00:00Z')).toEqual({
      ours: hourly,
      croner: hourly,
    });
    expect(both('0 * * * *', 'Europe/Berlin', '2026-03-28T23:30:00Z', '2026-03-29T03:00:00Z')).toEqual({
      ours: hourly,
      croner: hourly,
    });
  });

  it('differ on purpose in the repeated autumn hour: a restricted hour runs its first pass only (croner runs both passes of an interval job)', () => {
    expect(both('*/20 2 * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z', '2026-10-25T03:00:00Z')).toEqual({
      ours: ['00:00', '00:20', '00:40'],
      croner: ['00:00', '00:20', '00:40', '01:00', '01:20', '01:40'],
    });
  });

  it('differ on purpose in the spring gap: a skipped time fires one shift later, same minute (croner: at the end of the gap, or not at all for interval jobs)', () => {
    expect(both('30 2 * * *', 'Europe/Berlin', '2026-03-28T23:00:00Z', '2026-03-29T03:00:00Z')).toEqual({
      ours: ['01:30'],
      croner: ['01:00'],
    });
    expect(both('*/20 2 * * *', 'Europe/Berlin', '2026-03-28T23:00:00Z', '2026-03-29T03:00:00Z')).toEqual({
      ours: ['01:00', '01:20', '01:40'],
      croner: [],
    });
    // Lord Howe's 30-minute gap (02:00 → 02:30 on 2028-10-01, 15:30Z): 02:10 → 02:40
    expect(both('10 2 * * *', 'Australia/Lord_Howe', '2028-09-30T12:00:00Z', '2028-10-01T00:00:00Z')).toEqual({
      ours: ['15:40'],
      croner: ['15:30'],
    });
  });
});
