// Every skipped test, named with its reason, after vitest's summary: the default
// reporter counts skips ("2 skipped") but names none. The reason is in the name (the suite's
// convention: `describe.skipIf(why)(`title (skipped: ${why})`, …)`) or in `ctx.skip(why)`'s note.
// Under `-t PATTERN` only the skipped tests the pattern selects are listed, not the filtered-out rest.
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class SkipReasonsReporter implements Reporter {
  private pattern: RegExp | undefined;

  onInit(vitest: Vitest): void {
    const p = vitest.config.testNamePattern;
    this.pattern = p === undefined ? undefined : new RegExp(p);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const m of modules) {
      // the project too (a file may run in more than one: team-postgres runs team files again)
      const project = m.project.name ? `[${m.project.name}] ` : '';
      for (const test of m.children.allTests('skipped')) {
        if (this.pattern && !this.pattern.test(test.fullName)) continue;
        const r = test.result();
        const note = r.state === 'skipped' && r.note ? `: ${r.note}` : '';
        lines.push(`   ↓ ${project}${path.relative(process.cwd(), m.moduleId)} > ${test.fullName}${note}`);
      }
    }
    if (lines.length > 0)
      process.stdout.write(`\n Skipped (${lines.length}), each with its reason:\n${lines.join('\n')}\n\n`);
  }
}
