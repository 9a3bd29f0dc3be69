/** Marks where the member's reading stopped in the conversation they opened. */
export function NewMessagesDivider() {
  return (
    <li className="flex items-center gap-2 py-1 text-xs font-semibold text-accent" data-testid="new-messages-divider">
      <span className="h-px flex-1 bg-accent/50" aria-hidden="true" />
      New messages
      <span className="h-px flex-1 bg-accent/50" aria-hidden="true" />
    </li>
  );
}
