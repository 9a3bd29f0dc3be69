import { listedMember } from '@enclave/client/testing';
import { conversationIdFor } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../net/api-error';
import { failureText, groupNameProblem, groupTitle, pickableMembers, receiverIdOf, UNNAMED_GROUP } from './groups';

const id = (x: string) => `00000000-0000-4000-8000-00000000000${x}`;
const keys = { encryptionPublicKey: 'enc', signingPublicKey: 'sig' };
const [self, bob, carol, dave, eve] = [id('a'), id('b'), id('c'), id('d'), id('e')] as [string, string, string, string, string];
const users = [
  listedMember(carol, 'Carol', keys),
  listedMember(self, 'alice', keys),
  listedMember(bob, 'bob', keys),
  { ...listedMember(eve, 'eve', keys), isBanned: true },
  listedMember(dave, 'dave.carolsen', keys),
];
const names = (list: { username: string }[]) => list.map((u) => u.username);

describe('pickableMembers', () => {
  it('offers everyone but the member themself and the banned, by name', () => {
    expect(names(pickableMembers(users, { selfId: self }))).toEqual(['bob', 'Carol', 'dave.carolsen']);
  });

  it('leaves out those already in the group', () => {
    expect(names(pickableMembers(users, { selfId: self, exclude: [bob, carol] }))).toEqual(['dave.carolsen']);
  });

  it('keeps the names containing the search, whatever the case and the spaces around it', () => {
    expect(names(pickableMembers(users, { selfId: self, query: '  CAROL ' }))).toEqual(['Carol', 'dave.carolsen']);
    expect(names(pickableMembers(users, { selfId: self, query: 'eve' }))).toEqual([]);
    expect(names(pickableMembers(users, { selfId: self, query: 'alice' }))).toEqual([]);
  });
});

describe('group names', () => {
  it('takes 1 to 64 characters once trimmed', () => {
    expect(groupNameProblem('Project Falcon')).toBeNull();
    expect(groupNameProblem('x'.repeat(64))).toBeNull();
    expect(groupNameProblem('   ')).toBe('Please enter a group name');
    expect(groupNameProblem('x'.repeat(65))).toBe('A group name has at most 64 characters');
  });

  it('shows a name that does not open as an unnamed group', () => {
    expect(groupTitle({ name: 'Falcon' })).toBe('Falcon');
    expect(groupTitle({ name: null })).toBe(UNNAMED_GROUP);
  });
});

describe('receiverIdOf', () => {
  const group = 'group:12345678-1234-4123-8123-123456789abc';
  it('opens a group message in its group, a DM with its sender, anything else in the channel', () => {
    expect(receiverIdOf({ conversationId: group, senderId: bob }, self)).toBe(group);
    expect(receiverIdOf({ conversationId: conversationIdFor(self, bob), senderId: bob }, self)).toBe(bob);
    expect(receiverIdOf({ conversationId: 'general', senderId: bob }, self)).toBe('all');
  });
});

describe('failureText', () => {
  it("says the server's words, else the error's, else the fallback", () => {
    const refused = new ApiError(
      403,
      "403: Only the group's admins can remove members",
      'forbidden',
      "Only the group's admins can remove members",
    );
    expect(failureText(refused, 'Could not remove')).toBe("Only the group's admins can remove members");
    expect(failureText(new ApiError(500, '500: Internal Server Error'), 'Could not remove')).toBe('Could not remove');
    expect(failureText(new Error('No such member'), 'Could not remove')).toBe('No such member');
    expect(failureText('?', 'Could not remove')).toBe('Could not remove');
  });
});
