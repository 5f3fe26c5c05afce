// The dashboard's one query, shared by the page and by boot(), which starts it before the page
// has rendered when the app opens on the dashboard. The marks let bench/ui-dashboard.ts tell the
// engine's answer time from the page's own work.
import type { ApiClient } from '../../../engine/api/client.ts';

export const DASHBOARD_KEY = ['dashboard'] as const;

export function dashboardQuery(api: ApiClient) {
  return {
    queryKey: DASHBOARD_KEY,
    queryFn: async () => {
      performance.mark('ax:dashboard-asked');
      const data = await api.dashboard();
      performance.mark('ax:dashboard-answered');
      return data;
    },
  };
}
