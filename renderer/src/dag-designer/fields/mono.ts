/** the designer's look for text the engine reads literally: names, commands, cron, YAML */
export const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' };
