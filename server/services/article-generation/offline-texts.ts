/**
 * The sentences of the offline article writer (offline-writer.ts), in Russian and English: templates the
 * writer fills with the brief's keyword, the profile's niche and audience and the shop's name. Templates
 * put the keyword and the niche in quotes, and Russian ones name an aspect only in the nominative (`такой
 * критерий, как …`), so any text reads grammatically without declining it.
 */

/** Languages the offline writer writes in; any other locale gets English. */
export type WriterLanguage = "ru" | "en";

/** What the templates are filled with (already cleaned of the profile's avoided words). */
export interface TextContext {
  /** The keyword as given. */
  k: string;
  /** The keyword with a capital first letter (headings, titles). */
  K: string;
  /** The profile's niche. */
  n: string;
  /** The profile's audience, or null. */
  au: string | null;
  /** The shop's name. */
  s: string;
}

/** One thing a reader weighs when choosing: its name (lowercase) and a checklist hint. */
export interface Aspect {
  name: string;
  hint: string;
}

type Line = (c: TextContext) => string;
type AspectLine = (c: TextContext, a: string) => string;

/** Everything the offline writer says in one language. */
export interface WriterTexts {
  title: Line;
  metaDescription: Line;
  intro: Line[];
  aboutHeading: Line;
  aspectHeading: (aspect: string, round: number) => string;
  about: AspectLine[];
  aspects: Aspect[];
  chooseHeading: string;
  chooseIntro: string;
  chooseMore: AspectLine[];
  productsHeading: Line;
  productsIntro: Line;
  card: ((c: TextContext, name: string) => string)[];
  relatedHeading: string;
  relatedIntro: string;
  highlight: (h: string) => string;
  faqHeading: string;
  questions: AspectLine[];
  answers: AspectLine[];
  generalAnswers: string[];
  conclusionHeading: string;
  conclusion: Line[];
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** `«name»`, unless the name already carries quotes of its own. */
const q = (s: string) => (/[«"“]/.test(s) ? s : `«${s}»`);

const ru: WriterTexts = {
  title: (c) => `${c.K}: практическое руководство`,
  metaDescription: (c) =>
    `Практическое руководство по теме «${c.k}»: что важно, как выбрать и что предлагает магазин ${q(c.s)}.`,
  intro: [
    (c) => `Эта статья — о теме «${c.k}»: что в ней важно, как выбирать и на что смотреть в первую очередь.`,
    (c) =>
      c.au
        ? `Мы писали её для наших читателей (${c.au}), опираясь на то, о чём каждый день спрашивают покупатели магазина ${q(c.s)}.`
        : `Мы писали её, опираясь на то, о чём каждый день спрашивают покупатели магазина ${q(c.s)}.`,
    (c) => `Всё, что здесь собрано, основано на нашем опыте в нише «${c.n}», поэтому советы практические.`,
  ],
  aboutHeading: (c) => `${c.K}: что важно знать`,
  aspectHeading: (a, round) => (round === 0 ? cap(a) : `${cap(a)}: подробнее`),
  about: [
    (c, a) =>
      `${cap(a)} — одна из первых вещей, на которые стоит обратить внимание, если вас интересует тема «${c.k}».`,
    (c, a) => `В нише «${c.n}» такой критерий, как ${a}, часто решает больше, чем кажется на первый взгляд.`,
    (_, a) => `Внимательный взгляд на такой критерий, как ${a}, помогает избежать разочарований и сэкономить время.`,
    (c, a) =>
      `${c.au ? `Для наших читателей (${c.au})` : "Для большинства покупателей"} такой критерий, как ${a}, обычно определяет, подойдёт ли вариант на каждый день.`,
    (_, a) => `Перед покупкой имеет смысл сравнить несколько вариантов по такому признаку, как ${a}.`,
    (_, a) =>
      `Опыт показывает: на такой критерий, как ${a}, легко не обратить внимания в начале, а исправить ошибку потом сложнее.`,
    (c, a) =>
      `В магазине ${q(c.s)} мы учитываем такой критерий, как ${a}, когда подбираем ассортимент, чтобы вам было проще выбрать.`,
    (c, a) =>
      `Если вы только начинаете разбираться в нише «${c.n}», начните с такого критерия, как ${a}: он сразу показывает, чего ждать.`,
    (_, a) =>
      `Мелкие детали, которые касаются такого критерия, как ${a}, складываются в общее впечатление, поэтому их стоит записывать при сравнении.`,
    (_, a) =>
      `Спросите себя, что означает такой критерий, как ${a}, именно в вашей ситуации, — ответ заметно сузит выбор.`,
    (c, a) => `Покупатели, которые уже разобрались в теме «${c.k}», почти всегда упоминают такой критерий, как ${a}.`,
    (_, a) =>
      `Не стоит гнаться только за одним параметром, но такой критерий, как ${a}, заслуживает отдельного внимания.`,
  ],
  aspects: [
    {
      name: "качество",
      hint: "посмотрите на материалы, отделку и то, как вещь будет выглядеть через несколько месяцев",
    },
    { name: "цена", hint: "сравните не только стоимость, но и то, что в неё входит: доставку, гарантию, комплектацию" },
    { name: "надёжность", hint: "узнайте, как вариант ведёт себя в ежедневном использовании и что говорят владельцы" },
    {
      name: "удобство",
      hint: "подумайте, насколько легко пользоваться вещью каждый день и подходит ли она вашим привычкам",
    },
    { name: "размер и посадка", hint: "сверьтесь с таблицей размеров и, если сомневаетесь, снимите мерки заранее" },
    { name: "материалы", hint: "проверьте состав и то, как материал переносит стирку, влагу и нагрузку" },
    { name: "уход", hint: "заранее узнайте, как чистить и хранить вещь, чтобы она дольше оставалась как новая" },
    { name: "сроки доставки", hint: "уточните, когда заказ будет у вас, особенно если он нужен к определённой дате" },
    { name: "гарантия и возврат", hint: "прочитайте условия: сколько дней есть на возврат и что покрывает гарантия" },
    { name: "сезонность", hint: "подумайте, в какое время года вы будете пользоваться покупкой чаще всего" },
    { name: "бюджет", hint: "определите сумму заранее, чтобы сравнивать варианты одного уровня" },
    { name: "внешний вид", hint: "убедитесь, что цвет и стиль сочетаются с тем, что у вас уже есть" },
    { name: "отзывы покупателей", hint: "ищите подробные отзывы с фотографиями и реальным опытом использования" },
    { name: "безопасность", hint: "проверьте сертификаты и рекомендации, особенно если покупка для детей" },
    { name: "долговечность", hint: "оцените, сколько прослужит вещь и можно ли найти запасные части" },
    { name: "совместимость", hint: "проверьте, подходит ли покупка к вещам, которые у вас уже есть" },
    { name: "хранение", hint: "подумайте, где вещь будет лежать, когда вы ею не пользуетесь" },
    { name: "совет специалиста", hint: "если сомневаетесь, задайте вопрос консультанту магазина" },
  ],
  chooseHeading: "Как выбрать: чек-лист",
  chooseIntro: "Пройдитесь по этим пунктам по очереди, прежде чем принимать решение.",
  chooseMore: [
    (_, a) => `Внесите такой критерий, как ${a}, в свой список и сравните по нему хотя бы два варианта.`,
    (c, a) =>
      `Если в описании мало сказано про такой критерий, как ${a}, спросите в магазине ${q(c.s)} — мы с радостью ответим.`,
    (_, a) => `Запишите, чего вы ждёте от такого критерия, как ${a}, ещё до начала поиска — так выбор пойдёт быстрее.`,
    (_, a) => `Когда два варианта выглядят похоже, различие часто видно именно в таком критерии, как ${a}.`,
    (_, a) => `Не торопитесь с таким критерием, как ${a}: несколько минут проверки сейчас избавят от возврата потом.`,
    (c, a) =>
      `Удачный выбор в теме «${c.k}» — это баланс между таким критерием, как ${a}, и остальными пунктами списка.`,
  ],
  productsHeading: (c) => `Что предлагает магазин ${q(c.s)}`,
  productsIntro: (c) => `Вот товары из нашего каталога, которые подходят к теме «${c.k}»:`,
  card: [
    (_, name) => `${q(name)} — хороший вариант, чтобы проверить советы из этой статьи на практике.`,
    (_, name) => `На странице товара ${q(name)} есть подробности, фотографии и наличие.`,
  ],
  relatedHeading: "Связанные темы",
  relatedIntro: "Если хотите узнать больше, вот близкие темы:",
  highlight: (h) => `По нашим данным: ${h}`,
  faqHeading: "Частые вопросы",
  questions: [
    (c, a) => `Насколько важен такой критерий, как ${a}, в теме «${c.k}»?`,
    (_, a) => `Что нужно знать про такой критерий, как ${a}, перед покупкой?`,
    (c, a) => `Поможет ли магазин ${q(c.s)} разобраться с таким критерием, как ${a}?`,
    (_, a) => `Стоит ли доплачивать ради такого критерия, как ${a}?`,
  ],
  answers: [
    () => "Это один из главных пунктов: от него зависит, как долго вы будете довольны выбором.",
    () => "Главное — сравнить варианты по этому признаку и внимательно прочитать описание.",
    (c) => `Да: напишите нам, и команда магазина ${q(c.s)} поможет разобраться и подберёт подходящие варианты.`,
    () => "Часто да, потому что исправить это после покупки трудно.",
  ],
  generalAnswers: [
    "Если что-то непонятно, подробности есть на странице товара, а консультанты ответят на вопросы.",
    "Сравните несколько вариантов рядом, и разница станет заметна.",
    "Отзывы других покупателей помогут проверить ожидания.",
    "Исходите из своих задач: лучший вариант — тот, что подходит именно вам.",
  ],
  conclusionHeading: "Итоги",
  conclusion: [
    (c) =>
      `Выбирать в теме «${c.k}» проще, когда понятно, на что смотреть: начните с пунктов чек-листа и сравните несколько вариантов.`,
    (c) => `Если остались вопросы, команда магазина ${q(c.s)} с радостью поможет с выбором.`,
  ],
};

const en: WriterTexts = {
  title: (c) => `${c.K}: a practical guide`,
  metaDescription: (c) =>
    `A practical guide to "${c.k}"${c.au ? ` for ${c.au}` : ""}: what matters, how to choose and what ${c.s} offers.`,
  intro: [
    (c) => `This article is about "${c.k}": what matters, how to choose and what to look at first.`,
    (c) => `We wrote it for ${c.au ?? "our readers"}, drawing on what the ${c.s} team hears from customers every day.`,
    (c) => `Everything here comes from our work in "${c.n}", so the advice is practical rather than theoretical.`,
  ],
  aboutHeading: (c) => `${c.K}: what matters`,
  aspectHeading: (a, round) => (round === 0 ? cap(a) : `${cap(a)}: a closer look`),
  about: [
    (c, a) => `${cap(a)} is one of the first things worth checking when you look into "${c.k}".`,
    (c, a) => `Among people interested in "${c.n}", ${a} often matters more than it seems at first.`,
    (_, a) => `A careful look at ${a} helps you avoid disappointment and saves time later.`,
    (c, a) => `For ${c.au ?? "most buyers"}, ${a} usually decides whether an option works for every day.`,
    (_, a) => `Before deciding, it makes sense to compare two or three options by ${a}.`,
    (_, a) => `Experience shows that ${a} is easy to overlook at first and hard to fix afterwards.`,
    (c, a) => `At ${c.s} we keep ${a} in mind when we choose what to sell, so that your choice is simpler.`,
    (c, a) => `If you are new to "${c.n}", start with ${a}: it quickly shows what to expect.`,
    (_, a) => `Small details of ${a} add up to the overall impression, so note them down while you compare.`,
    (_, a) => `Ask yourself what ${a} means in your own situation, and the answer will narrow the choice.`,
    (c, a) => `People who already know the topic "${c.k}" almost always mention ${a}.`,
    (_, a) => `There is no need to chase a single feature, but ${a} deserves attention of its own.`,
  ],
  aspects: [
    { name: "quality", hint: "look at the materials, the finish and how the item will look after a few months of use" },
    {
      name: "price",
      hint: "compare not only the price tag but what it includes: delivery, warranty and what comes in the box",
    },
    { name: "reliability", hint: "find out how it behaves in everyday use and what owners say about it" },
    { name: "comfort", hint: "think about how easy it is to use every day and whether it fits your habits" },
    { name: "size and fit", hint: "check the size chart and, when in doubt, take measurements before you order" },
    { name: "materials", hint: "check what it is made of and how the material copes with washing, moisture and wear" },
    { name: "care", hint: "learn how to clean and store it so that it stays like new for longer" },
    { name: "delivery time", hint: "ask when the order will arrive, especially when you need it by a certain date" },
    {
      name: "warranty and returns",
      hint: "read the terms: how many days you have for a return and what the warranty covers",
    },
    { name: "season", hint: "think about the time of year when you will use it most" },
    { name: "budget", hint: "set an amount in advance so that you compare options of the same level" },
    { name: "appearance", hint: "make sure the colour and style go with what you already have" },
    { name: "customer reviews", hint: "look for detailed reviews with photos and real experience of use" },
    { name: "safety", hint: "check certificates and recommendations, especially when buying for children" },
    { name: "durability", hint: "estimate how long it will last and whether spare parts are available" },
    { name: "compatibility", hint: "check that it works with the things you already own" },
    { name: "storage", hint: "think about where it will be kept when you are not using it" },
    { name: "expert advice", hint: "when in doubt, ask the shop's consultant a question" },
  ],
  chooseHeading: "How to choose: a checklist",
  chooseIntro: "Go through these points one by one before you decide.",
  chooseMore: [
    (_, a) => `Put ${a} on your list and compare at least two options by it.`,
    (c, a) => `If the description says little about ${a}, ask ${c.s}: we will gladly answer.`,
    (_, a) => `Write down what you expect from ${a} before you start looking, and the search will be faster.`,
    (_, a) => `When two options look alike, ${a} is often what tells them apart.`,
    (_, a) => `Do not hurry with ${a}: a few minutes of checking now save a return later.`,
    (c, a) => `A good choice in "${c.k}" balances ${a} with the other points of this list.`,
  ],
  productsHeading: (c) => `What ${c.s} offers`,
  productsIntro: (c) => `Here are products from our catalog that match "${c.k}":`,
  card: [
    (_, name) => `${name} is a good way to try the advice of this article in practice.`,
    (_, name) => `The page of ${name} has the details, photos and availability.`,
  ],
  relatedHeading: "Related topics",
  relatedIntro: "If you want to read further, these topics are close to this one:",
  highlight: (h) => `From our data: ${h}`,
  faqHeading: "Frequently asked questions",
  questions: [
    (c, a) => `How important is ${a} for "${c.k}"?`,
    (_, a) => `What should I know about ${a} before I buy?`,
    (c, a) => `Can ${c.s} help me with ${a}?`,
    (_, a) => `Is ${a} worth paying extra for?`,
  ],
  answers: [
    (_, a) => `It is one of the main points: ${a} affects how long you will be happy with your choice.`,
    (_, a) => `The main thing is to compare options by ${a} and to read the description carefully.`,
    (c) => `Yes: write to us, and the ${c.s} team will help you and suggest suitable options.`,
    () => "Often it is, because this is hard to improve after the purchase.",
  ],
  generalAnswers: [
    "If something is unclear, the product page and our consultants will give the details.",
    "Compare a few options side by side, and the difference will be easy to see.",
    "Reviews of other buyers are a good way to check your expectations.",
    "Keep your own needs in mind: the best option is the one that fits them.",
  ],
  conclusionHeading: "Conclusion",
  conclusion: [
    (c) =>
      `Choosing in "${c.k}" is easier when you know what to look at: start with the points of the checklist and compare a few options.`,
    (c) => `If you have questions, the ${c.s} team is happy to help you choose.`,
  ],
};

/** The texts of `language`. */
export function writerTexts(language: WriterLanguage): WriterTexts {
  return language === "ru" ? ru : en;
}

/** The writer's language of a BCP 47 tag: `ru`, `ru-RU` → ru; anything else → en. */
export function writerLanguage(locale: string): WriterLanguage {
  return /^ru(?:[-_]|$)/i.test(locale.trim()) ? "ru" : "en";
}
