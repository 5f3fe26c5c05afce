// The app-wide keyboard layer (global-keys.ts), mounted once by AppLayout: "/" to the header's
// search, "g d" / "g w" / "g r" to the dashboard, workflows and runs, j / k / Enter through the
// page's tables (row-cursor.ts), "?" for the list of them. Off on the designer's routes, which
// have their own shortcuts.
import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { GlobalKeyReader } from './global-keys.ts';
import { KeysHelp } from './KeysHelp.tsx';
import { clearCursor, moveCursor, openCursor } from './row-cursor.ts';

/** the header's search field (GlobalSearch, in AppLayout's role="search") */
const SEARCH_INPUT = '[role="search"] input';

export function GlobalKeys() {
  const navigate = useNavigate();
  const location = useLocation();
  const [help, setHelp] = useState(false);
  const reader = useRef(new GlobalKeyReader());
  const path = useRef(location.pathname);
  useEffect(() => {
    path.current = location.pathname;
    clearCursor(); // a new page starts without a row chosen
  }, [location.pathname]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const action = reader.current.read(e, path.current);
      if (!action) return;
      const done = (() => {
        switch (action.type) {
          case 'search': {
            const input = document.querySelector<HTMLInputElement>(SEARCH_INPUT);
            input?.focus();
            return !!input;
          }
          case 'go':
            navigate(action.to);
            return true;
          case 'help':
            setHelp(true);
            return true;
          case 'next':
            return moveCursor(1);
          case 'previous':
            return moveCursor(-1);
          case 'open':
            return openCursor();
          case 'clear':
            clearCursor();
            return false;
        }
      })();
      // the key did something: it must not also type a "/" into the field it focused
      if (done) e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [navigate]);
  return <KeysHelp open={help} onClose={() => setHelp(false)} />;
}
