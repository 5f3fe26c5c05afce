// dayjs (the date type of antd's pickers) in the UI's language: month and weekday names of the
// pickers follow the language switch.
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import i18next from 'i18next';

const follow = (lng: string | undefined) => void dayjs.locale(lng === 'zh-CN' ? 'zh-cn' : 'en');
follow(i18next.language);
i18next.on('languageChanged', follow);

export { dayjs };
export type { Dayjs } from 'dayjs';
