// A button that copies a link to the clipboard (the lobby's links, the director's console link).
import { h, type VNode } from 'snabbdom';

export function copyButton(text: string, label: string): VNode {
  return h(
    'button.copy',
    {
      attrs: { type: 'button', 'aria-label': label },
      on: {
        click: async (ev: Event) => {
          const b = ev.currentTarget as HTMLButtonElement;
          try {
            await navigator.clipboard.writeText(text);
            b.textContent = 'Copied';
          } catch {
            b.textContent = 'Select and copy';
          }
          setTimeout(() => (b.textContent = 'Copy'), 1500);
        },
      },
    },
    'Copy',
  );
}
