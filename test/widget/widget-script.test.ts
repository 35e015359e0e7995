/**
 * The widget's bundle at start: built when missing or older than a source, written to its
 * output, and served from there while it is fresh (the console's build check, by mtime).
 */
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWidgetBundle, type WidgetBuildPaths } from '../../src/widget/widget-script.js';

describe('widget bundle at start', () => {
  let dir: string;
  let paths: WidgetBuildPaths;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'widget-bundle-'));
    paths = { entry: join(dir, 'main.ts'), sources: [join(dir, 'main.ts'), join(dir, 'text.ts')], output: join(dir, 'dist', 'widget.js') };
    await writeFile(join(dir, 'text.ts'), "export const TEXT: string = 'first';\n");
    await writeFile(paths.entry, "import { TEXT } from './text.js';\nconsole.log(TEXT);\n");
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a second start does not rebuild; a touched source does', async () => {
    const first = await loadWidgetBundle(paths);
    expect(first.built).toBe(true);
    expect(first.body.toString()).toContain('first');

    const second = await loadWidgetBundle(paths);
    expect(second).toEqual({ body: first.body, built: false });

    // The bundle dated a minute back, then an edit: the source is newer, the bundle stale.
    const before = new Date(Date.now() - 60_000);
    await utimes(paths.output, before, before);
    await writeFile(join(dir, 'text.ts'), "export const TEXT: string = 'second';\n");
    const third = await loadWidgetBundle(paths);
    expect(third.built).toBe(true);
    expect(third.body.toString()).toContain('second');
    expect(await loadWidgetBundle(paths)).toEqual({ body: third.body, built: false });
  });
});
