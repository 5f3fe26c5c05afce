// Focuses a field once the panel showing it is rendered; not if the user has gone elsewhere
// meanwhile (say, into the task's name box): that would take the typing away from them.
export function focusLater(id: string): void {
  const before = document.activeElement;
  setTimeout(() => {
    if (document.activeElement === before || document.activeElement === document.body)
      document.getElementById(id)?.focus();
  }, 50);
}
