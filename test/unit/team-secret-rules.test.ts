// The group rules the engine itself checks for team secrets (the API's authorizer checks roles
// and the group a request names; these see the group a secret already has), and which workflows
// may use a group's secret.
import { describe, expect, it } from 'vitest';
import { changeRefusal, useRefusal } from '../../engine/core/secrets/team-secret-rules.ts';

const editor = (groups: string[]) => ({ name: 'dan', role: 'editor', groups });

describe('changeRefusal', () => {
  it('lets the node itself (no role) and admins change any secret', () => {
    expect(changeRefusal('root@node', 's', 'billing', 'ops')).toBeUndefined();
    expect(changeRefusal({ name: 'ax (API token)' }, 's', 'billing', undefined)).toBeUndefined();
    expect(changeRefusal({ name: 'ada', role: 'admin', groups: [] }, 's', 'billing', 'ops')).toBeUndefined();
  });

  it("lets an editor change group-less secrets and their own groups' secrets, in any direction within them", () => {
    expect(changeRefusal(editor([]), 's', undefined, null)).toBeUndefined();
    expect(changeRefusal(editor([]), 's', null, null)).toBeUndefined();
    expect(changeRefusal(editor(['a', 'b']), 's', 'a', 'b')).toBeUndefined();
    expect(changeRefusal(editor(['a']), 's', 'a', null)).toBeUndefined();
    expect(changeRefusal(editor(['a']), 's', null, 'a')).toBeUndefined();
  });

  it('refuses an editor a secret of a group they are not in, either end, naming the group', () => {
    expect(changeRefusal(editor(['a']), 's', 'b', null)).toBe(
      'team secret "s" belongs to group "b": only admins and editors in "b" may replace, move or remove it (dan\'s groups: "a")',
    );
    expect(changeRefusal(editor([]), 's', null, 'b')).toBe(
      'only admins and editors in group "b" may set its secrets (dan\'s groups: none)',
    );
    expect(changeRefusal(editor(['a']), 's', 'b', undefined)).toContain('belongs to group "b"');
  });

  it('refuses viewers and operators, naming the role needed', () => {
    expect(changeRefusal({ name: 'vic', role: 'viewer', groups: ['a'] }, 's', 'a', 'a')).toBe(
      "changing team secrets needs the editor role (in the secret's group) or admin; vic is viewer",
    );
    expect(changeRefusal({ name: 'otto', role: 'operator', groups: [] }, 's', undefined, null)).toContain(
      'otto is operator',
    );
  });
});

describe('useRefusal', () => {
  it("lets every workflow use a group-less secret, and a group's own workflows its secrets", () => {
    expect(useRefusal('s', null, 'etl', null)).toBeUndefined();
    expect(useRefusal('s', null, 'etl', 'billing')).toBeUndefined();
    expect(useRefusal('s', 'data', 'etl', 'data')).toBeUndefined();
  });

  it('refuses a workflow of another group, or of none, naming both and the fix', () => {
    expect(useRefusal('s', 'data', 'invoices', 'billing')).toBe(
      'team secret "s" belongs to group "data" and workflow "invoices" is owned by group "billing": only workflows owned by "data" may use it (give the workflow owner: data, or use a secret of its own group)',
    );
    expect(useRefusal('s', 'data', 'adhoc', null)).toContain('workflow "adhoc" has no owner group');
    expect(useRefusal('s', 'data', 'adhoc', undefined)).toContain('has no owner group');
  });
});
