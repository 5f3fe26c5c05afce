// Server state lives in react-query; engine events invalidate or patch it, so polling is not needed.
import { QueryClient } from '@tanstack/react-query';
import { AxError } from '../../../engine/api/errors.ts';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // fresh until an event or a reconnect says otherwise
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        // a validation or not-found answer will not change by asking again
        retry: (count, error) =>
          count < 2 && !(error instanceof AxError && (error.code === 'validation' || error.code === 'not_found')),
      },
    },
  });
}
