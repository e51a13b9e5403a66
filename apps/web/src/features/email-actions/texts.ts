import { t } from '../../lib/public-texts';
import type { FlowMessage } from './flow-types';

/** The words of a flow message: its translation, or the server's own text. */
export function flowMessageText(message: FlowMessage): string {
  return 'text' in message ? message.text : t(message.key, message.values);
}
