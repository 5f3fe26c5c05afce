// A generated 150-task DAG (15 layers of 10, each task after one or two of the layer before), the
// size issue 24 reads the history grid and the trends at; shared by test/ui/history-grid.test.ts
// and bench/ui-history.ts.
const STEPS = ['extract', 'clean', 'dedupe', 'join', 'enrich', 'score', 'aggregate', 'index', 'load', 'verify'];

export const WIDE_TASKS = 150;

export function wideTaskName(layer: number, i: number): string {
  return `${STEPS[layer % STEPS.length]}_${String(layer + 1).padStart(2, '0')}_${String(i + 1).padStart(2, '0')}`;
}

export function wideDagYaml(name = 'wide', tasks = WIDE_TASKS): string {
  const perLayer = 10;
  const lines = [`workflow: ${name}`, 'tasks:'];
  for (let n = 0; n < tasks; n++) {
    const layer = Math.floor(n / perLayer);
    const i = n % perLayer;
    lines.push(`  ${wideTaskName(layer, i)}:`, `    command: echo ${wideTaskName(layer, i)}`);
    if (layer > 0) {
      const ups = [wideTaskName(layer - 1, i), wideTaskName(layer - 1, (i + 3) % perLayer)];
      lines.push(`    upstream: [${[...new Set(i % 2 ? ups : ups.slice(0, 1))].join(', ')}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}
