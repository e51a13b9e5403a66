import { useState } from 'react';
import { AppLogo } from './AppLogo';

/**
 * The organisation's logo from `src` (its own, or the brand's default the server answers), with
 * the product mark if the image cannot be loaded.
 */
export function BrandLogo({
  src,
  alt,
  size,
  className,
}: {
  src: string;
  alt: string;
  size: number;
  className?: string;
}) {
  const [failed, setFailed] = useState(false);
  if (failed) return <AppLogo size={size} />;
  return (
    <img
      src={src}
      alt={alt}
      className={className}
      style={{ maxHeight: size, maxWidth: '100%', objectFit: 'contain' }}
      onError={() => setFailed(true)}
    />
  );
}
