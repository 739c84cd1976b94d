import type { StrategistFigures } from "@/server/lib/strategist/analyst-io";

/**
 * The sentences of the offline analyst (offline-analyst.ts), in English and Russian: each section states
 * the tenant's figures with their period, so every number the reply gives is one the figures hold.
 */

/** Languages the offline analyst answers in. */
export type AnalystLanguage = "ru" | "en";
/** Which comparison a reply uses: last 7 days vs the 7 before, or last 30 vs the 30 before. */
export type Period = "week" | "month";

/** Signed percent change, `+50%`; `new` from zero, `±0%` unchanged. */
export function change(current: number, previous: number, lang: AnalystLanguage): string {
  if (previous === 0) return current === 0 ? "±0%" : lang === "ru" ? "рост с нуля" : "up from zero";
  const pct = Math.round(((current - previous) / previous) * 100);
  return pct === 0 ? "±0%" : `${pct > 0 ? "+" : ""}${pct}%`;
}

/** `part` of `whole` as a percent with one decimal, `0%` when `whole` is 0. */
export function rate(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : "0%";
}

const STATUS_RU: Record<string, string> = {
  new: "новые",
  qualified: "квалифицированные",
  proposal: "предложение",
  negotiation: "переговоры",
  won: "выиграны",
  lost: "проиграны",
  open: "открыты",
  handoff_pending: "ждут оператора",
  resolved: "решены",
  closed: "закрыты",
  draft: "черновики",
  review: "на проверке",
  approved: "одобрены",
  published: "опубликованы",
  rejected: "отклонены",
  proposed: "предложены",
  generating: "пишутся",
  generated: "написаны",
  duplicate: "дубли",
  expired: "истекли",
};

/** `a 3, b 2` of a status → count map, biggest first (ties by name). */
export function counts(map: Record<string, number>, lang: AnalystLanguage): string {
  const list = Object.entries(map)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${lang === "ru" ? (STATUS_RU[k] ?? k) : k.replace("_", " ")} ${n}`);
  return list.length ? list.join(", ") : lang === "ru" ? "нет" : "none";
}

const P = {
  en: { week: ["the last 7 days", "the 7 days before"], month: ["the last 30 days", "the 30 days before"] },
  ru: { week: ["последние 7 дней", "предыдущие 7 дней"], month: ["последние 30 дней", "предыдущие 30 дней"] },
} as const;

/** "12 in the last 7 days vs 8 in the 7 days before (+50%)". */
function compared(c: { current: number; previous: number }, period: Period, lang: AnalystLanguage): string {
  const [cur, prev] = P[lang][period];
  return lang === "ru"
    ? `${c.current} за ${cur} против ${c.previous} за ${prev} (${change(c.current, c.previous, lang)})`
    : `${c.current} in ${cur} vs ${c.previous} in ${prev} (${change(c.current, c.previous, lang)})`;
}

type Section = (f: StrategistFigures, period: Period, lang: AnalystLanguage) => string;

/** One section per subject the analyst answers about. */
export const SECTIONS: Record<"leads" | "sources" | "funnel" | "conversations" | "articles" | "topics", Section> = {
  leads: (f, p, l) =>
    l === "ru"
      ? `Лиды: ${compared(f.leads.created[p], p, l)}; выиграно ${compared(f.leads.won[p], p, l)}. Всего лидов ${f.leads.total} (${counts(f.leads.byStatus, l)}).`
      : `Leads: ${compared(f.leads.created[p], p, l)}; won ${compared(f.leads.won[p], p, l)}. ${f.leads.total} leads in all (${counts(f.leads.byStatus, l)}).`,
  sources: (f, p, l) => {
    const top = [...f.leads.bySource]
      .sort((a, b) => b.created[p].current - a.created[p].current || b.total - a.total)
      .slice(0, 3);
    if (!top.length)
      return l === "ru" ? "Источников лидов пока нет: лидов нет." : "No lead sources yet: there are no leads.";
    const [cur] = P[l][p];
    const list = top
      .map((s) =>
        l === "ru"
          ? `${s.source}: ${s.created[p].current} (до этого ${s.created[p].previous}), всего ${s.total}, выиграно ${s.won}`
          : `${s.source}: ${s.created[p].current} (before: ${s.created[p].previous}), ${s.total} in all, ${s.won} won`,
      )
      .join("; ");
    return l === "ru" ? `Главные источники лидов за ${cur}: ${list}.` : `Top lead sources in ${cur}: ${list}.`;
  },
  funnel: (f, _p, l) => {
    const { sessions, leads, won } = f.funnel;
    const leadsToWon = rate(won, leads);
    if (sessions === null)
      return l === "ru"
        ? `Воронка за последние 30 дней: ${leads} лидов → ${won} выиграно (${leadsToWon}); сессий в данных дашборда нет, поэтому шаг сессии → лиды не посчитан.`
        : `Funnel over the last 30 days: ${leads} leads → ${won} won (${leadsToWon}); the dashboard has no sessions figure, so the sessions → leads step is not measured.`;
    const sessionsToLeads = rate(leads, sessions);
    const worst =
      sessions > 0 && leads / sessions <= (leads > 0 ? won / leads : 0)
        ? l === "ru"
          ? "сессии → лиды"
          : "sessions → leads"
        : l === "ru"
          ? "лиды → выигрыш"
          : "leads → won";
    return l === "ru"
      ? `Воронка за последние 30 дней: ${sessions} сессий → ${leads} лидов (${sessionsToLeads}) → ${won} выиграно (${leadsToWon}). Больше всего теряется на шаге ${worst}.`
      : `Funnel over the last 30 days: ${sessions} sessions → ${leads} leads (${sessionsToLeads}) → ${won} won (${leadsToWon}). The largest drop-off is ${worst}.`;
  },
  conversations: (f, p, l) => {
    const c = f.conversations;
    return l === "ru"
      ? `Диалоги: начато ${compared(c.started[p], p, l)}; всего ${c.total} (${counts(c.byStatus, l)}); ${c.withLead} привели к лиду (${rate(c.withLead, c.total)}), ${c.byOperator} вёл оператор.`
      : `Conversations: ${compared(c.started[p], p, l)} started; ${c.total} in all (${counts(c.byStatus, l)}); ${c.withLead} produced a lead (${rate(c.withLead, c.total)}), ${c.byOperator} were handled by an operator.`;
  },
  articles: (f, p, l) => {
    const a = f.articles;
    const head =
      l === "ru"
        ? `Статьи: опубликовано ${compared(a.published[p], p, l)}; всего ${a.total} (${counts(a.byStatus, l)}).`
        : `Articles: ${compared(a.published[p], p, l)} published; ${a.total} in all (${counts(a.byStatus, l)}).`;
    const pages = (a.traffic ?? []).slice(0, 3);
    const traffic = pages.length
      ? l === "ru"
        ? ` Самые посещаемые страницы: ${pages.map((x) => `${x.page} (${x.sessions} сессий)`).join(", ")}.`
        : ` Most visited pages: ${pages.map((x) => `${x.page} (${x.sessions} sessions)`).join(", ")}.`
      : l === "ru"
        ? " Данных о трафике страниц нет (блок популярных страниц не подключён)."
        : " There is no page traffic data (the popular pages block is not connected).";
    return head + traffic;
  },
  topics: (f, _p, l) => {
    const byStatus: Record<string, number> = {};
    for (const t of f.topics) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
    const open = (byStatus.proposed ?? 0) + (byStatus.approved ?? 0) + (byStatus.generating ?? 0);
    return l === "ru"
      ? `Темы: ${f.topics.length} в работе стратега, из них открыто ${open} (${counts(byStatus, l)}).`
      : `Topics: ${f.topics.length} known to the strategist, ${open} of them open (${counts(byStatus, l)}).`;
  },
};

/** The reply's first line. */
export const heading = (shop: string, asOf: string, l: AnalystLanguage) =>
  l === "ru" ? `${shop}: данные на ${asOf}.` : `${shop}: figures as of ${asOf}.`;

/** The line introducing proposals, or saying there is none to make. */
export const proposalsLine = (titles: string[], l: AnalystLanguage) =>
  titles.length
    ? l === "ru"
      ? `Предлагаю темы (подтвердите действие, чтобы добавить тему): ${titles.map((t, i) => `${i + 1}) «${t}»`).join("; ")}.`
      : `I propose these topics (confirm an action to add its topic): ${titles.map((t, i) => `${i + 1}) "${t}"`).join("; ")}.`
    : l === "ru"
      ? "Новых тем предложить не из чего: все темы по ключевым словам и карточкам уже открыты или данных нет."
      : "No new topic to propose: every topic from the keywords and cards is already open, or there are none.";
