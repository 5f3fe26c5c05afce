/** who the engine records in the audit log for actions taken in this UI */
export const UI_ACTOR = 'ui';
