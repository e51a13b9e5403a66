import { z } from 'zod/mini';
import { THEMES } from './constants.ts';

/**
 * System Settings → Customization (SPEC §2.4: enableCustomLogo or enableChangeApplicationMode;
 * issue 12): the organisation's logo on the sign-in, public and console pages, and the theme its
 * people start with.
 */
export const CUSTOMIZATION_API = {
  customization: '/api/v1/customization',
  /** PUT a new logo; DELETE restores the brand's. */
  logo: '/api/v1/customization/logo',
} as const;

export const LOGO_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'] as const;
export type LogoMime = (typeof LOGO_MIME_TYPES)[number];
export const LOGO_MAX_BYTES = 1024 * 1024;

export const customizationSchema = z
  .object({
    has_custom_logo: z.boolean(),
    logo_mime: z.nullable(z.enum(LOGO_MIME_TYPES)),
    /** The theme of anyone who has not chosen one. */
    default_application_mode: z.enum(THEMES),
    /** The flags that open each half of the page. */
    can_change_logo: z.boolean(),
    can_change_application_mode: z.boolean(),
  })
  .register(z.globalRegistry, { id: 'Customization' });
export type Customization = z.infer<typeof customizationSchema>;

export const customizationUpdateSchema = z
  .strictObject({ default_application_mode: z.enum(THEMES) })
  .register(z.globalRegistry, { id: 'CustomizationUpdate' });

export const logoUploadSchema = z
  .strictObject({
    mime: z.enum(LOGO_MIME_TYPES),
    /** The file, base64 (at most LOGO_MAX_BYTES once decoded). */
    data: z
      .string()
      .check(
        z.maxLength(Math.ceil(LOGO_MAX_BYTES / 3) * 4 + 4),
        z.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not_base64'),
      ),
  })
  .register(z.globalRegistry, { id: 'LogoUpload' });
export type LogoUpload = z.infer<typeof logoUploadSchema>;
