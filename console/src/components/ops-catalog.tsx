/** Operation families on and off, for everyone at once. */
import type { CatalogView, OpsClient } from 'agent-runtime-sdk';
import { useCatalog } from '../queries/ops.queries.js';
import { useAction } from '../hooks/use-action.js';
import { ErrorText, Loading } from './status.js';
import { toast } from '../toast.js';

export function OpsCatalog({ ops }: { ops: OpsClient }) {
  const catalog = useCatalog(ops);
  const toggle = useAction(async (view: CatalogView, family: string, on: boolean) => {
    const disabled = new Set(view.settings.disabledFamilies);
    if (on) disabled.delete(family);
    else disabled.add(family);
    await ops.catalog.set({ disabledFamilies: [...disabled].sort(), disabledOperations: view.settings.disabledOperations });
    toast(`${family} ${on ? 'on' : 'off'}`);
    await catalog.reload();
  });
  if (!catalog.data)
    return <section class="card">{catalog.error ? <ErrorText text={catalog.error} /> : <Loading what="the catalog" />}</section>;
  const view: CatalogView = catalog.data;
  const families = [...new Set(view.operations.map((op) => op.family))].sort();
  return (
    <section class="card" aria-labelledby="catalog-title">
      <h2 id="catalog-title">Operation families</h2>
      <p class="muted small">
        A family switched off is gone for everyone (MCP tools and REST) at once, on every process. Catalog version {view.version}.
        {view.settings.disabledOperations.length > 0 ? ` Operations off by name: ${view.settings.disabledOperations.join(', ')}.` : ''}
      </p>
      <ErrorText text={toggle.error} />
      <fieldset class="families" disabled={toggle.busy}>
        <legend class="sr-only">Families switched on</legend>
        {families.map((family) => {
          const count = view.operations.filter((op) => op.family === family).length;
          return (
            <label key={family} class="check">
              <input
                type="checkbox"
                checked={!view.settings.disabledFamilies.includes(family)}
                onChange={(event) => void toggle.run(view, family, event.currentTarget.checked)}
              />
              {family} <span class="muted small">({count} operations)</span>
            </label>
          );
        })}
      </fieldset>
    </section>
  );
}
