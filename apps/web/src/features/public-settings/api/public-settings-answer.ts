import { field, isBoolean, object } from '../../../lib/answer-readers';

/** What the public bundle reads of the public settings: the brand theme and the single sign-on buttons. */
export interface PublicSettings {
  checkpointTheme: boolean;
  sonicwallTheme: boolean;
  samlAuth: boolean;
  office365Auth: boolean;
  googleAuth: boolean;
}

/** GET /api/v1/generic/ui_features_public (PublicFeatures), read without zod. */
export const publicSettingsAnswer = {
  parse(value: unknown): PublicSettings {
    const fields = object(value, 'PublicFeatures');
    return {
      checkpointTheme: field(fields, 'checkpointTheme', 'PublicFeatures', isBoolean),
      sonicwallTheme: field(fields, 'sonicwallTheme', 'PublicFeatures', isBoolean),
      samlAuth: field(fields, 'samlAuth', 'PublicFeatures', isBoolean),
      office365Auth: field(fields, 'office365Auth', 'PublicFeatures', isBoolean),
      googleAuth: field(fields, 'googleAuth', 'PublicFeatures', isBoolean),
    };
  },
};
