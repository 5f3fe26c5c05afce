// The pages a browser sees when an SSO sign-in does not end signed in (server/oidc.ts): what
// happened, in words, in English or Chinese (Accept-Language), with the way back to sign-in.
import type http from 'node:http';
import { SECURITY_HEADERS } from './static-ui.ts';

export type OidcProblem =
  | { kind: 'unavailable'; issuer: string; detail: string }
  | { kind: 'bad_return'; path: string }
  | { kind: 'expired' }
  | { kind: 'other_browser' }
  | { kind: 'busy' }
  | { kind: 'provider_error'; error: string; description?: string }
  | { kind: 'exchange_failed'; detail: string }
  | { kind: 'claims'; detail: string }
  | { kind: 'no_group'; name: string; groups: string[]; accepted: string[] }
  | { kind: 'refused'; message: string };

type Lang = 'en' | 'zh-CN';

/** What the provider's error codes mean (RFC 6749 4.1.2.1, OpenID Connect Core 3.1.2.6). */
const PROVIDER_ERRORS: Record<string, Record<Lang, string>> = {
  access_denied: { en: 'you or the provider declined the sign-in', 'zh-CN': '您或身份提供方拒绝了此次登录' },
  login_required: { en: 'the provider needs you to sign in first', 'zh-CN': '身份提供方要求您先登录' },
  consent_required: { en: 'the provider needs your consent first', 'zh-CN': '身份提供方需要您先同意授权' },
  interaction_required: { en: 'the provider needs you to act on its page', 'zh-CN': '身份提供方需要您在其页面上操作' },
  temporarily_unavailable: {
    en: 'the provider is busy or down for a moment: try again',
    'zh-CN': '身份提供方暂时不可用：请稍后再试',
  },
  server_error: {
    en: 'the provider failed: try again, or tell an administrator',
    'zh-CN': '身份提供方出错：请重试或联系管理员',
  },
  unauthorized_client: {
    en: 'this client may not sign in this way: an administrator must fix the client at the provider',
    'zh-CN': '该客户端不允许以此方式登录：需管理员在身份提供方修正客户端配置',
  },
  invalid_request: {
    en: 'the provider did not accept the request: an administrator must check the client (redirect URL, PKCE)',
    'zh-CN': '身份提供方不接受该请求：需管理员检查客户端配置（回调地址、PKCE）',
  },
};

const none = { en: '(none)', 'zh-CN': '（无）' };

function text(p: OidcProblem, lang: Lang): { status: number; title: string; message: string } {
  const zh = lang === 'zh-CN';
  switch (p.kind) {
    case 'unavailable':
      return {
        status: 503,
        title: zh ? '单点登录暂不可用' : 'Single sign-on is not available',
        message: zh
          ? `无法连接身份提供方 ${p.issuer}（${p.detail}）。请稍后再试；若一直如此，请联系管理员。`
          : `The sign-in provider at ${p.issuer} cannot be reached (${p.detail}). Try again in a minute; if it persists, tell an administrator.`,
      };
    case 'bad_return':
      return {
        status: 400,
        title: zh ? '返回地址无效' : 'Not a page of this server',
        message: zh
          ? `返回地址“${p.path}”不是本服务器的页面：登录后只能回到本服务器的页面（以 / 开头的路径）。`
          : `The return address "${p.path}" is not a page of this server: a sign-in returns only to a path of this server (starting with /).`,
      };
    case 'expired':
      return {
        status: 400,
        title: zh ? '登录已失效' : 'This sign-in has expired',
        message: zh
          ? '此次登录已过期或已被使用（每次登录 10 分钟内有效，且只能使用一次）。请重新登录。'
          : 'This sign-in expired or was used already (each one lasts 10 minutes and works once). Start again.',
      };
    case 'other_browser':
      return {
        status: 400,
        title: zh ? '登录来自另一个浏览器' : 'Started in another browser',
        message: zh
          ? '此次登录是在另一个浏览器中发起的（或其 Cookie 已丢失），因此被拒绝。请在当前浏览器中重新登录。'
          : 'This sign-in was started in another browser (or its cookie was lost), so it is refused. Start again in this browser.',
      };
    case 'busy':
      return {
        status: 503,
        title: zh ? '登录请求过多' : 'Too many sign-ins in progress',
        message: zh
          ? '进行中的登录过多，请一分钟后再试。'
          : 'Too many sign-ins are in progress: try again in a minute.',
      };
    case 'provider_error': {
      const meaning = PROVIDER_ERRORS[p.error]?.[lang];
      const said = p.description ? ` — ${p.description}` : '';
      return {
        status: p.error === 'access_denied' ? 403 : 502,
        title: zh ? '身份提供方未完成登录' : 'The provider did not sign you in',
        message: zh
          ? `身份提供方返回 ${p.error}${meaning ? `：${meaning}` : ''}${said}。`
          : `The provider answered ${p.error}${meaning ? `: ${meaning}` : ''}${said}.`,
      };
    }
    case 'exchange_failed':
      return {
        status: 502,
        title: zh ? '无法核验身份提供方的应答' : "The provider's answer failed the checks",
        message: zh
          ? `未能完成登录：${p.detail}。请重新登录；若一直如此，请联系管理员。`
          : `Nothing was signed in: ${p.detail}. Start again; if it persists, tell an administrator.`,
      };
    case 'claims':
      return {
        status: 502,
        title: zh ? '身份信息不完整' : 'The provider sent too little',
        message: zh ? `未能完成登录：${p.detail}。` : `Nothing was signed in: ${p.detail}.`,
      };
    case 'no_group': {
      const groups = p.groups.length ? p.groups.join(', ') : none[lang];
      const accepted = p.accepted.join(', ');
      return {
        status: 403,
        title: zh ? '您所在的组无权访问' : 'None of your groups may use this scheduler',
        message: zh
          ? `您在身份提供方的身份是 ${p.name}，但您所在的组（${groups}）均未获准访问。接受的组：${accepted}。请联系管理员将您加入其中之一。`
          : `The provider knows you as ${p.name}, but none of your groups (${groups}) is allowed here. Groups accepted: ${accepted}. Ask an administrator to add you to one of them.`,
      };
    }
    case 'refused':
      return { status: 403, title: zh ? '登录被拒绝' : 'Sign-in refused', message: p.message };
  }
}

/** zh-CN when the browser asks for Chinese before English; English otherwise. */
export function pageLanguage(acceptLanguage: string | undefined): Lang {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase() ?? '';
    if (tag.startsWith('zh')) return 'zh-CN';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** Answers the page of a problem; its status says the kind (400 the request, 403 refused, 502/503 the provider). */
export function sendProblem(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  problem: OidcProblem,
  headers: Record<string, string | string[]> = {},
): void {
  const lang = pageLanguage(req.headers['accept-language']);
  const { status, title, message } = text(problem, lang);
  const back = lang === 'zh-CN' ? '返回登录' : 'Back to sign-in';
  const html = `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escape(title)} · AX Scheduler</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<h1 style="font-size: 1.4rem">${escape(title)}</h1>
<p id="problem" data-kind="${problem.kind}">${escape(message)}</p>
<p><a href="/">${back}</a></p>
</body></html>
`;
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(html);
}
