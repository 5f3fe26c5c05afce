// The OpenID provider's claims in AX's words: the group → role map, the highest role, the groups
// kept, and the account name.
import { describe, expect, it } from 'vitest';
import { formatRoleMap, identityFromClaims, parseRoleMap } from '../../engine/core/access/sso-claims.ts';

const roleMap = parseRoleMap('platform=admin, data-team=editor,analysts=viewer,ops=operator');
const rules = { roleMap, groupsClaim: 'groups' };

describe('parseRoleMap', () => {
  it('reads GROUP=ROLE pairs, spaces and empty entries aside', () => {
    expect([...parseRoleMap(' a=viewer,, b.c=admin ')]).toEqual([
      ['a', 'viewer'],
      ['b.c', 'admin'],
    ]);
    expect(formatRoleMap(roleMap)).toBe('platform=admin,data-team=editor,analysts=viewer,ops=operator');
  });

  it('says what to fix', () => {
    expect(() => parseRoleMap('platform')).toThrow(
      /"platform" is not GROUP=ROLE .*roles: viewer, operator, editor, admin/,
    );
    expect(() => parseRoleMap('platform=root')).toThrow(/"root" \(for group platform\) is not a role/);
    expect(() => parseRoleMap('a=viewer,a=admin')).toThrow(/group "a" is mapped twice/);
    expect(() => parseRoleMap(' , ')).toThrow(/oidc-role-map is empty/);
    expect(() => parseRoleMap('/platform=admin')).toThrow(
      /oidc-role-map: group "\/platform": use 1 to 100 letters, digits and \. _ - .*Full group path/,
    );
  });
});

describe('identityFromClaims', () => {
  it('gives the highest role of the mapped groups, and keeps only mapped groups', () => {
    const out = identityFromClaims(
      { sub: 's1', preferred_username: 'ada', groups: ['analysts', 'data-team', 'offline_access', 'data-team'] },
      rules,
    );
    expect(out).toEqual({ identity: { name: 'ada', groups: ['analysts', 'data-team'], role: 'editor' } });
  });

  it('a user in no mapped group has no role (refused by the caller), whatever else they are in', () => {
    expect(identityFromClaims({ sub: 's2', email: 'bob@example.com', groups: ['sales'] }, rules)).toEqual({
      identity: { name: 'bob@example.com', groups: [], role: undefined },
    });
    expect(identityFromClaims({ sub: 's3' }, rules)).toEqual({ identity: { name: 's3', groups: [], role: undefined } });
  });

  it('reads one group given as a string, and a dotted claim path (Keycloak realm_access.roles)', () => {
    expect(identityFromClaims({ sub: 'x', groups: 'platform' }, rules)).toMatchObject({
      identity: { role: 'admin', groups: ['platform'] },
    });
    expect(
      identityFromClaims(
        { sub: 'x', realm_access: { roles: ['ops', 'uma'] } },
        { ...rules, groupsClaim: 'realm_access.roles' },
      ),
    ).toMatchObject({ identity: { role: 'operator', groups: ['ops'] } });
  });

  it('the configured name claim wins, and its absence is an error naming it', () => {
    expect(
      identityFromClaims({ sub: 'x', preferred_username: 'ada', upn: 'ada@corp' }, { ...rules, usernameClaim: 'upn' }),
    ).toMatchObject({ identity: { name: 'ada@corp' } });
    expect(identityFromClaims({ sub: 'x', preferred_username: 'ada' }, { ...rules, usernameClaim: 'upn' })).toEqual({
      error: expect.stringMatching(/no "upn" claim \(oidc-username-claim\)/) as unknown,
    });
  });
});
