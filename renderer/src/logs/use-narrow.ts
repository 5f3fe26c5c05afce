// Whether the window is narrower than 1100 px: the instance page then puts its log first.
import { useMediaQuery } from '../shared/use-media-query.ts';

export const NARROW_QUERY = '(max-width: 1099.98px)';

export const useNarrow = (): boolean => useMediaQuery(NARROW_QUERY);
