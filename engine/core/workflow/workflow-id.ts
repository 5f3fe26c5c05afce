// A workflow's id by its name, for every call that names one: a name no workflow has is a
// not_found that says where the names are.
import { AxError } from '../../api/errors.ts';
import type { Store } from '../../ports/store.ts';

export async function workflowIdOf(store: Pick<Store, 'findWorkflowId'>, name: string): Promise<number> {
  const id = await store.findWorkflowId(name);
  if (id === undefined)
    throw new AxError('not_found', `no workflow named "${name}": see "ax ls" for the workflows there are`);
  return id;
}
