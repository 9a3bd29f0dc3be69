import type { PublicUser } from '@enclave/protocol';
import { useId, useState } from 'react';
import { Input, Label } from '../components/ui/Input';
import { pickableMembers } from './groups';

type MemberPickerProps = {
  users: readonly PublicUser[];
  selfId: string;
  /** Members not offered (those already in the group). */
  exclude?: readonly string[];
  selected: ReadonlySet<string>;
  onChange: (selected: ReadonlySet<string>) => void;
  disabled?: boolean;
};

/** A searchable checklist of the members who may be put in a group; the chosen stay chosen while the search changes. */
export function MemberPicker({ users, selfId, exclude, selected, onChange, disabled = false }: MemberPickerProps) {
  const searchId = useId();
  const [query, setQuery] = useState('');
  const offered = pickableMembers(users, { selfId, exclude, query });
  const anyone = pickableMembers(users, { selfId, exclude }).length > 0;

  function toggle(id: string, on: boolean) {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    onChange(next);
  }

  return (
    <fieldset className="grid min-w-0 gap-2" disabled={disabled}>
      <legend className="mb-1.5 text-sm font-medium">
        Members <span className="font-normal text-muted">({selected.size} chosen)</span>
      </legend>
      <Label htmlFor={searchId} className="sr-only">
        Search members
      </Label>
      <Input
        id={searchId}
        type="search"
        autoComplete="off"
        placeholder="Search members"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <ul className="grid max-h-56 gap-0.5 overflow-y-auto rounded-md border border-border p-1">
        {offered.map((user) => (
          <li key={user.id}>
            <label className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-sm hover:bg-surface-raised">
              <input
                type="checkbox"
                className="size-4 accent-emerald-500"
                checked={selected.has(user.id)}
                onChange={(e) => toggle(user.id, e.target.checked)}
              />
              <span className="truncate">{user.username}</span>
            </label>
          </li>
        ))}
        {offered.length === 0 ? (
          <li className="px-2 py-1.5 text-sm text-muted">{anyone ? 'No member matches.' : 'Nobody else can be added.'}</li>
        ) : null}
      </ul>
    </fieldset>
  );
}
