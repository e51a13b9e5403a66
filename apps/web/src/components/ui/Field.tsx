import type { ReactNode } from 'react';

/** A label and its value in a summary's description list (`<dl>`; styled by `.preview-field`). */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="preview-field">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
