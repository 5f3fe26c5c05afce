// Reads a /metrics page the way Prometheus would: parsed by a Prometheus text parser (a page it
// cannot parse fails the test), then looked up by metric name and labels.
import parsePrometheusTextFormat, { type PromFamily, type PromSample } from 'parse-prometheus-text-format';

export class Scrape {
  readonly families: Map<string, PromFamily>;

  constructor(readonly text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  }

  family(name: string): PromFamily {
    const f = this.families.get(name);
    if (!f) throw new Error(`no metric ${name} in the scrape; there are ${[...this.families.keys()].join(', ')}`);
    return f;
  }

  private sample(name: string, labels: Record<string, string>): PromSample | undefined {
    return this.family(name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  }

  /** a counter's or gauge's value (undefined when that label set has no sample) */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const s = this.sample(name, labels);
    return s?.value === undefined ? undefined : Number(s.value);
  }

  /**
   * A histogram's observation count. The parser merges a labelled histogram's series into one
   * (it keeps prom2json's shape, which drops their labels), so a series is read from its
   * `NAME_count{…}` line, in a page the parser has accepted.
   */
  count(name: string, labels: Record<string, string> = {}): number {
    if (this.family(name).type !== 'HISTOGRAM') throw new Error(`${name} is not a histogram`);
    for (const line of this.text.split('\n')) {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m || m[1] !== `${name}_count`) continue;
      const have = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
      );
      if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
    }
    return 0;
  }
}

/** GET /metrics; throws unless 200. */
export async function scrape(url: string, token?: string): Promise<Scrape> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text}`);
  return new Scrape(text);
}
