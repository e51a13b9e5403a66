import { useTranslation } from 'react-i18next';
import { NoticeAlert } from '../../../components/ui/NoticeAlert';
import type { Notice } from '../use-public-flow';
import { flowMessageText } from './flow-message';

/** A flow notice above a form. */
export function FlowNotice({ notice }: { notice: Notice | null }) {
  const { t } = useTranslation();
  if (!notice) return null;
  return <NoticeAlert tone={notice.tone}>{flowMessageText(t, notice.message)}</NoticeAlert>;
}
