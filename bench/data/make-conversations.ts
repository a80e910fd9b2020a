/**
 * Generates bench/data/conversations-large.json, the conversational retrieval
 * benchmark: `npx tsx bench/data/make-conversations.ts`.
 *
 * Deterministic (seeded PRNG): eight conversations between two friends, each
 * with 24 dated sessions (about 3,000 turns in all), and questions with their
 * answer turns marked, of four kinds:
 * - `single-hop`: the answer turn states the fact with the question's topic words;
 * - `context`: the topic is in the turn before ("What's your book club reading?"),
 *   the answer turn only makes sense after it ("Piranesi. I stayed up till two.");
 * - `temporal`: "When did…?" — the answer turn places the event in time
 *   ("…last weekend"), to be read with the session date;
 * - `multi-hop`: the answer is spread over turns of several sessions
 *   ("Which cities has Maya travelled to?").
 * Around them: greetings, reactions, follow-ups, small talk that shares topic
 * words, and later mentions of the same things that do not answer.
 *
 * The questions were written (as templates) before any ranking was tuned.
 * Conversations c0–c3 are the `tune` split, c4–c7 the `heldout` split.
 */
import { writeFile } from "node:fs/promises";

let seed = 20261130;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const shuffle = <T>(xs: readonly T[]): T[] => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

type Kind = "single-hop" | "context" | "temporal" | "multi-hop";
interface Line {
  speaker: string;
  text: string;
  /** Marks the answer turn of an event. */
  answer?: string;
}
interface Question {
  q: string;
  kind: Kind;
  evidence: Array<[number, number]>;
  answer: string;
}

/** A relative time expression and its offset in days before the session date. */
const WHEN: Array<[string, number]> = [
  ["yesterday", 1],
  ["last weekend", 6],
  ["last Friday", 4],
  ["two weeks ago", 14],
  ["last month", 30],
  ["three days ago", 3],
  ["on Sunday", 2],
  ["earlier this week", 3],
];

/** One kind of life event: how it is said directly, asked about, answered, re-mentioned, and asked in a question. */
interface Template {
  cat: string;
  /** Slot values; one is drawn per event, never twice in a conversation. */
  values: string[][];
  direct: (v: string[]) => string;
  timed: (v: string[], when: string) => string;
  ask: (v: string[]) => string;
  reply: (v: string[]) => string;
  replyTimed: (v: string[], when: string) => string;
  q: (name: string, v: string[]) => string;
  qWhen: (name: string, v: string[]) => string;
  later: (v: string[]) => string[];
  answer: (v: string[]) => string;
  /** Multi-hop question over all of a person's events of this kind (kinds a person has several of). */
  multi?: (name: string) => string;
}

const T: Template[] = [
  {
    cat: "pet",
    values: [["beagle", "Biscuit"], ["tabby cat", "Pepper"], ["rabbit", "Miso"], ["greyhound", "Juniper"], ["parrot", "Rocket"], ["kitten", "Olive"], ["spaniel", "Pickle"], ["tortoise", "Sheldon"]],
    direct: ([a, n]) => `We finally adopted a ${a} from the shelter and named it ${n}.`,
    timed: ([a, n], w) => `We adopted a ${a} from the shelter ${w}, it's called ${n}.`,
    ask: ([a]) => `How is the ${a} from the shelter settling in? What did you end up calling it?`,
    reply: ([, n]) => `${n}! Already sleeps at the foot of my bed every night.`,
    replyTimed: ([, n], w) => `${n}! We only brought it home ${w} and it already owns the sofa.`,
    q: (p, [a]) => `What did ${p} name the ${a} adopted from the shelter?`,
    qWhen: (p, [a]) => `When did ${p} adopt the ${a}?`,
    later: ([a, n]) => [`${n} chewed through another charger cable this morning.`, `The shelter asked if we'd foster another ${a}, but one is plenty.`],
    answer: ([, n]) => n,
  },
  {
    cat: "job",
    values: [["data analyst", "Fernhill Logistics"], ["nurse", "Northgate Hospital"], ["designer", "Brightwave Labs"], ["project manager", "Copperleaf Bank"], ["sous chef", "The Olive Tree"], ["teacher", "Elmwood Primary"], ["engineer", "Tidewater Games"], ["accountant", "Alder and Finch"]],
    direct: ([r, c]) => `Big news: I got the ${r} job at ${c}!`,
    timed: ([r, c], w) => `I started my new job as a ${r} at ${c} ${w}.`,
    ask: ([r]) => `Did you hear back about that ${r} job you interviewed for?`,
    reply: ([, c]) => `Yes, they said yes! I'm at ${c} now and the team seems lovely.`,
    replyTimed: ([, c], w) => `They said yes, and I had my first day at ${c} ${w}.`,
    q: (p, [r]) => `Which company hired ${p} as a ${r}?`,
    qWhen: (p, [, c]) => `When did ${p} start working at ${c}?`,
    later: ([, c]) => [`Another long day at ${c}, my manager loves meetings.`, `Job hunting is exhausting, I don't envy anyone doing it.`],
    answer: ([, c]) => c,
  },
  {
    cat: "trip",
    values: [["Lisbon", "a food tour"], ["Kyoto", "a tea ceremony"], ["Reykjavik", "a glacier hike"], ["Marrakesh", "a cooking class"], ["Vancouver", "whale watching"], ["Prague", "a jazz festival"], ["Oaxaca", "a mezcal tasting"], ["Tallinn", "a sauna evening"], ["Hobart", "a sea kayak trip"], ["Seville", "a flamenco show"], ["Edinburgh", "a ghost walk"], ["Bergen", "a fjord cruise"]],
    direct: ([c, a]) => `I just got back from ${c}, where I did ${a}. The food was incredible.`,
    timed: ([c, a], w) => `I flew back from ${c} ${w}; the highlight was ${a}.`,
    ask: ([, a]) => `You said you were doing ${a} on your holiday. Where was that again?`,
    reply: ([c]) => `${c}! I walked everywhere and ate far too much.`,
    replyTimed: ([c], w) => `${c}, I only got home ${w} and I'm still tired.`,
    q: (p, [, a]) => `Where did ${p} go for ${a}?`,
    qWhen: (p, [c]) => `When did ${p} travel to ${c}?`,
    later: ([c]) => [`Still thinking about the food in ${c}.`, `I need another holiday already, travelling spoils you.`],
    answer: ([c]) => c,
    multi: (p) => `Which cities has ${p} travelled to?`,
  },
  {
    cat: "game",
    values: [["Civilization VI", "a month"], ["Stardew Valley", "three weeks"], ["Elden Ring", "two months"], ["Hades", "six weeks"], ["Minecraft", "a fortnight"], ["Baldur's Gate 3", "ten days"], ["Tetris Effect", "half a year"], ["Animal Crossing", "a year"]],
    direct: ([g, d]) => `I've been playing ${g} every evening for ${d}, it's so addictive.`,
    timed: ([g], w) => `I started playing ${g} ${w} and I can't stop.`,
    ask: ([g]) => `Are you still playing ${g}?`,
    reply: ([, d]) => `Been at it for ${d} now, every single evening.`,
    replyTimed: (_, w) => `Only since ${w}, but I'm hooked already.`,
    q: (p, [g]) => `How long has ${p} been playing ${g}?`,
    qWhen: (p, [g]) => `When did ${p} start playing ${g}?`,
    later: ([g]) => [`Stayed up way too late with ${g} again.`, `My brother thinks video games are a waste of time.`],
    answer: ([, d]) => d,
  },
  {
    cat: "instrument",
    values: [["cello", "Mrs Okafor"], ["ukulele", "Dan"], ["piano", "Ingrid"], ["drums", "Marco"], ["violin", "Priya"], ["saxophone", "Mr Lindqvist"], ["harp", "Aoife"], ["guitar", "Felipe"]],
    direct: ([i, t]) => `I've started ${i} lessons with a teacher called ${t}.`,
    timed: ([i, t], w) => `I had my first ${i} lesson ${w}, with a teacher called ${t}.`,
    ask: ([i]) => `How are the ${i} lessons going? Who's teaching you?`,
    reply: ([, t]) => `${t}, who is very patient with me, luckily.`,
    replyTimed: ([, t], w) => `${t}. We only had the first session ${w}, but so far so good.`,
    q: (p, [i]) => `Who teaches ${p} the ${i}?`,
    qWhen: (p, [i]) => `When did ${p} start ${i} lessons?`,
    later: ([i]) => [`Practised ${i} scales for an hour, the neighbours must hate me.`, `Music theory is harder than I thought.`],
    answer: ([, t]) => t,
  },
  {
    cat: "race",
    values: [["the Rotterdam marathon", "3 hours 52 minutes"], ["the Bath half marathon", "1 hour 48 minutes"], ["the Berlin 10k", "44 minutes"], ["a trail race in the Alps", "5 hours 10 minutes"], ["the Nice triathlon", "2 hours 31 minutes"], ["the Great North Run", "2 hours 2 minutes"], ["a 5k park run", "23 minutes"], ["the Dublin marathon", "4 hours 15 minutes"]],
    direct: ([r, t]) => `I ran ${r} and finished in ${t}!`,
    timed: ([r, t], w) => `I ran ${r} ${w} and finished in ${t}.`,
    ask: ([r]) => `So how did ${r} go? What was your time?`,
    reply: ([, t]) => `${t}, my best ever, and my legs still hurt.`,
    replyTimed: ([, t], w) => `${t}! My legs have hurt ever since ${w}.`,
    q: (p, [r]) => `What was ${p}'s finishing time in ${r}?`,
    qWhen: (p, [r]) => `When did ${p} run ${r}?`,
    later: ([r]) => [`Already thinking about signing up for ${r} again.`, `Running in this heat is miserable.`],
    answer: ([, t]) => t,
  },
  {
    cat: "move",
    values: [["a flat near the harbour"], ["a cottage outside Bristol"], ["a loft in the old town"], ["a terraced house in Leeds"], ["a houseboat on the canal"], ["a bungalow by the sea"], ["a studio above a bakery"], ["a farmhouse in Wales"]],
    direct: ([h]) => `We moved house, into ${h}, and there are boxes everywhere.`,
    timed: ([h], w) => `We moved into ${h} ${w}.`,
    ask: () => `Have you finished moving house? Where is the new place?`,
    reply: ([h]) => `${cap(h)}. Finally unpacked the last box.`,
    replyTimed: ([h], w) => `${cap(h)}. We got the keys ${w}.`,
    q: (p) => `Where did ${p} move to when moving house?`,
    qWhen: (p) => `When did ${p} move house?`,
    later: () => [`The new place is so much quieter at night.`, `Moving house is the worst, I never want to do it again.`],
    answer: ([h]) => h,
  },
  {
    cat: "course",
    values: [["Spanish"], ["pottery"], ["photography"], ["coding"], ["first aid"], ["Italian cooking"], ["life drawing"], ["Mandarin"]],
    direct: ([s]) => `I signed up for an evening course in ${s} at the community college.`,
    timed: ([s], w) => `I had my first evening class in ${s} at the community college ${w}.`,
    ask: () => `What was that evening course you signed up for at the college?`,
    reply: ([s]) => `${cap(s)}, Tuesdays and Thursdays, and I love it.`,
    replyTimed: ([s], w) => `${cap(s)}. The first session was ${w}.`,
    q: (p) => `What evening course did ${p} sign up for at the community college?`,
    qWhen: (p, [s]) => `When did ${p} start the ${s} course?`,
    later: ([s]) => [`Homework for the ${s} class took me all evening.`, `The community college car park is always full.`],
    answer: ([s]) => s,
  },
  {
    cat: "concert",
    values: [["Arctic Monkeys", "the O2"], ["Florence and the Machine", "Glastonbury"], ["a jazz trio", "the Blue Note"], ["Coldplay", "Wembley"], ["Radiohead", "the Roundhouse"], ["Billie Eilish", "the Ziggo Dome"], ["Fleetwood Mac tribute band", "the Corn Exchange"], ["Bon Iver", "the Barbican"]],
    direct: ([b, v]) => `I saw ${b} live at ${v}, what a show.`,
    timed: ([b, v], w) => `I saw ${b} at ${v} ${w}, I'm still buzzing.`,
    ask: ([, v]) => `Who did you go and see at ${v} in the end?`,
    reply: ([b]) => `${cap(b)}! I lost my voice from singing along.`,
    replyTimed: ([b], w) => `${cap(b)}, ${w}. I'm still humming the songs.`,
    q: (p, [, v]) => `Which band did ${p} see at ${v}?`,
    qWhen: (p, [b]) => `When did ${p} see ${b} live?`,
    later: ([b]) => [`I can't stop listening to ${b} since the gig.`, `Concert tickets are getting so expensive.`],
    answer: ([b]) => b,
    multi: (p) => `Which bands or artists has ${p} seen live?`,
  },
  {
    cat: "book",
    values: [["The Overstory"], ["Project Hail Mary"], ["Piranesi"], ["Educated"], ["The Midnight Library"], ["Klara and the Sun"], ["Circe"], ["Dune"], ["Station Eleven"], ["Pachinko"]],
    direct: ([t]) => `My book club picked ${t} and I can't put it down.`,
    timed: ([t], w) => `I finished ${t} for my book club ${w}.`,
    ask: () => `What is your book club reading at the moment?`,
    reply: ([t]) => `${t}. I stayed up till two to finish it.`,
    replyTimed: ([t], w) => `${t}, which I finished ${w}.`,
    q: (p) => `Which book is ${p} reading for book club?`,
    qWhen: (p, [t]) => `When did ${p} finish reading ${t}?`,
    later: ([t]) => [`Someone at work spoiled the ending of ${t} for me.`, `I keep buying books faster than I read them.`],
    answer: ([t]) => t,
    multi: (p) => `Which books has ${p} read for book club?`,
  },
  {
    cat: "car",
    values: [["a second-hand Volvo estate"], ["an electric Renault Zoe"], ["a red Mini"], ["a Toyota hybrid"], ["a camper van"], ["a vintage Beetle"], ["a Skoda Octavia"], ["a Tesla Model 3"]],
    direct: ([c]) => `We bought a car at last: ${c}.`,
    timed: ([c], w) => `We picked up our new car ${w}, ${c}.`,
    ask: () => `Did you decide which car to buy in the end?`,
    reply: ([c]) => `${cap(c)}. It's already full of crumbs.`,
    replyTimed: ([c], w) => `${cap(c)}, we collected it ${w}.`,
    q: (p) => `What car did ${p} buy?`,
    qWhen: (p) => `When did ${p} buy the new car?`,
    later: () => [`The car needs new tyres already, typical.`, `Parking in town is impossible on Saturdays.`],
    answer: ([c]) => c,
  },
  {
    cat: "wedding",
    values: [["in Tuscany"], ["on a beach in Cornwall"], ["in a barn near York"], ["at a castle in Scotland"], ["in a vineyard in Portugal"], ["at the town hall in Ghent"], ["on a lake in Slovenia"], ["in a garden in Kent"]],
    direct: ([p]) => `My sister got married ${p}, it was beautiful.`,
    timed: ([p], w) => `My sister's wedding was ${w}, ${p}.`,
    ask: () => `Where was your sister's wedding in the end?`,
    reply: ([p]) => `${cap(p)}, and it didn't rain once.`,
    replyTimed: ([p], w) => `${cap(p)}, ${w}. I cried through the speeches.`,
    q: (n) => `Where did ${n}'s sister get married?`,
    qWhen: (n) => `When was ${n}'s sister's wedding?`,
    later: () => [`My sister sent the wedding photos, I look terrible in all of them.`, `Weddings are lovely but so expensive.`],
    answer: ([p]) => p,
  },
  {
    cat: "volunteer",
    values: [["the food bank"], ["a literacy charity"], ["the animal rescue centre"], ["the local parkrun"], ["a homeless shelter"], ["the hospice shop"], ["a community garden"], ["the repair cafe"]],
    direct: ([o]) => `I've started volunteering at ${o} on Saturdays.`,
    timed: ([o], w) => `I did my first volunteering shift at ${o} ${w}.`,
    ask: () => `Where is it you volunteer on Saturdays now?`,
    reply: ([o]) => `${cap(o)}. Sorting things mostly, but it feels good.`,
    replyTimed: ([o], w) => `${cap(o)}, I did my first shift ${w}.`,
    q: (p) => `Where does ${p} volunteer on Saturdays?`,
    qWhen: (p, [o]) => `When did ${p} start volunteering at ${o}?`,
    later: () => [`Volunteering is the best part of my week honestly.`, `Saturdays are so busy now.`],
    answer: ([o]) => o,
  },
  {
    cat: "hobby",
    values: [["bouldering"], ["birdwatching"], ["knitting"], ["sea swimming"], ["woodworking"], ["salsa dancing"], ["beekeeping"], ["archery"]],
    direct: ([h]) => `I've taken up ${h} with a friend from work.`,
    timed: ([h], w) => `A friend from work took me ${h} for the first time ${w}.`,
    ask: () => `What's the new hobby you started with your friend from work?`,
    reply: ([h]) => `${cap(h)}! I'm terrible at it but it's so much fun.`,
    replyTimed: ([h], w) => `${cap(h)}, we first went ${w}.`,
    q: (p) => `What hobby did ${p} take up with a friend from work?`,
    qWhen: (p, [h]) => `When did ${p} first go ${h}?`,
    later: ([h]) => [`My arms are sore from ${h} again.`, `I need a hobby that doesn't cost a fortune.`],
    answer: ([h]) => h,
  },
];

const NAMES = ["Maya", "Tom", "Ana", "James", "Priyanka", "Leo", "Sofia", "Omar", "Hannah", "Kenji", "Grace", "Mateo", "Nadia", "Felix", "Chloe", "Ravi"];

const FILLER = [
  "Work has been exhausting this week, so many meetings.",
  "The weather has been awful, rain every single day.",
  "I keep meaning to read more but never find the time.",
  "I really should travel more this year.",
  "My neighbour's dog barked all night again.",
  "We watched a documentary about Iceland last night.",
  "I'd love to learn an instrument someday.",
  "Traffic on the way to work was terrible yesterday.",
  "Did you watch the match on Saturday?",
  "I need a proper holiday.",
  "My back hurts from sitting at the desk all day.",
  "Cooking dinner every night is exhausting.",
  "I've been sleeping badly lately.",
  "My mum called, she says hi.",
  "We had friends over for dinner on Friday, it was lovely.",
  "I'm trying to drink less coffee, it's not going well.",
  "The garden is a jungle, I really need to mow the lawn.",
  "I finally cleaned out the fridge, it was grim.",
  "Have you seen any good films recently?",
  "My phone screen cracked, again.",
  "Money is tight this month, so I'm staying in.",
  "I started going to bed earlier and it helps a lot.",
  "The kids next door are learning the trumpet. Send help.",
  "My cousin is getting married next summer.",
  "I went for a long walk by the river this morning.",
  "I ordered too much takeaway this week.",
];
const REACT = [
  "That's amazing, {o}!",
  "Wow, I'm so happy for you.",
  "Ha, that sounds just like you.",
  "Oh no, that sounds rough.",
  "I'd love to hear more about that.",
  "Send me photos!",
  "You deserve it, honestly.",
  "No way! Tell me everything.",
  "That's so exciting.",
  "I'm jealous, in a good way.",
];
const FOLLOW_Q = ["How did it go?", "What was the best part?", "Was it what you expected?", "And how do you feel about it now?", "Are you glad you did it?"];
const FOLLOW_A = [
  "Better than I expected, honestly.",
  "Probably the people, everyone was so friendly.",
  "Not really, but in a good way.",
  "Tired but happy.",
  "Definitely, I'd do it again tomorrow.",
  "It took a while to get used to, but yes.",
];
const HELLO = ["Hey {o}! How have you been?", "Hi {o}, long time no talk!", "Good to hear from you, {o}.", "Morning {o}! Got a minute?"];
const HELLO_BACK = ["Hey! I'm good, busy as always. You?", "Hi! All good here. What's new?", "Always, what's up?", "Not bad at all. Tell me your news."];
const BYE = ["Anyway, I have to run. Talk soon!", "I should get going, speak next week?", "Right, dinner is ready. Bye for now!"];
const BYE_BACK = ["Bye {o}, take care!", "Talk soon!", "Enjoy your evening!"];

const fill = (s: string, o: string) => s.replace("{o}", o);

interface PlannedEvent {
  owner: 0 | 1;
  t: Template;
  v: string[];
  style: "direct" | "context";
  when?: [string, number];
}

function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function makeConversation(index: number) {
  const people = [NAMES[(2 * index) % NAMES.length]!, NAMES[(2 * index + 1) % NAMES.length]!] as const;
  // Plan the events: every template once per person, trips three times, concerts and books twice.
  const used = new Map<string, Set<number>>();
  const draw = (t: Template) => {
    const taken = used.get(t.cat) ?? new Set<number>();
    used.set(t.cat, taken);
    const free = t.values.map((_, i) => i).filter((i) => !taken.has(i));
    const i = pick(free);
    taken.add(i);
    return t.values[i]!;
  };
  const events: PlannedEvent[] = [];
  for (const owner of [0, 1] as const) {
    for (const t of T) {
      const times = t.cat === "trip" ? 3 : t.multi ? 2 : 1;
      for (let k = 0; k < times; k++) {
        events.push({ owner, t, v: draw(t), style: rand() < 0.5 ? "direct" : "context", when: rand() < 0.5 ? pick(WHEN) : undefined });
      }
    }
  }
  const order = shuffle(events);
  const sessionsCount = 24;
  let date = new Date(Date.UTC(2022 + (index % 3), (index * 5) % 12, 1 + ((index * 7) % 27)));
  const sessions: Array<{ date: string; turns: Array<[string, string]> }> = [];
  const questions: Question[] = [];
  const answerTurns = new Map<PlannedEvent, [number, number]>();
  const pendingLater: Array<{ owner: 0 | 1; text: string; from: number }> = [];
  let e = 0;
  for (let s = 0; s < sessionsCount; s++) {
    date = new Date(date.getTime() + (4 + Math.floor(rand() * 16)) * 86_400_000);
    const lines: Line[] = [];
    const opener = rand() < 0.5 ? 0 : 1;
    lines.push({ speaker: people[opener], text: fill(pick(HELLO), people[1 - opener]!) }, { speaker: people[1 - opener], text: pick(HELLO_BACK) });
    const perSession = Math.round(order.length / sessionsCount) + (s < order.length % sessionsCount ? 1 : 0);
    const mine = order.slice(e, e + Math.max(1, perSession));
    e += mine.length;
    const blocks: Line[][] = [];
    for (const ev of mine) {
      const me = people[ev.owner];
      const you = people[1 - ev.owner]!;
      const block: Line[] = [];
      if (ev.style === "direct") {
        block.push({ speaker: me, text: ev.when ? ev.t.timed(ev.v, ev.when[0]) : ev.t.direct(ev.v), answer: "x" });
        block.push({ speaker: you, text: fill(pick(REACT), me) });
      } else {
        block.push({ speaker: you, text: ev.t.ask(ev.v) });
        block.push({ speaker: me, text: ev.when ? ev.t.replyTimed(ev.v, ev.when[0]) : ev.t.reply(ev.v), answer: "x" });
        block.push({ speaker: you, text: fill(pick(REACT), me) });
      }
      if (rand() < 0.7) block.push({ speaker: you, text: pick(FOLLOW_Q) }, { speaker: me, text: pick(FOLLOW_A) });
      (block as Line[] & { ev?: PlannedEvent }).ev = ev;
      blocks.push(block);
      for (const text of ev.t.later(ev.v)) pendingLater.push({ owner: ev.owner, text, from: s + 1 + Math.floor(rand() * 6) });
    }
    // Small talk and later mentions of earlier events, between and around the events.
    const extras: Line[][] = [];
    const smallTalk = 3 + Math.floor(rand() * 3);
    for (let i = 0; i < smallTalk; i++) {
      const who = rand() < 0.5 ? 0 : 1;
      extras.push([{ speaker: people[who], text: pick(FILLER) }, { speaker: people[1 - who]!, text: fill(pick(REACT), people[who]) }]);
    }
    for (let i = pendingLater.length - 1; i >= 0; i--) {
      const l = pendingLater[i]!;
      if (l.from <= s && rand() < 0.6) {
        extras.push([{ speaker: people[l.owner], text: l.text }, { speaker: people[1 - l.owner]!, text: fill(pick(REACT), people[l.owner]) }]);
        pendingLater.splice(i, 1);
      }
    }
    for (const block of shuffle([...blocks, ...extras])) lines.push(...block);
    const closer = rand() < 0.5 ? 0 : 1;
    lines.push({ speaker: people[closer], text: pick(BYE) }, { speaker: people[1 - closer]!, text: fill(pick(BYE_BACK), people[closer]) });
    // Record where each event's answer turn landed.
    for (const block of blocks) {
      const ev = (block as Line[] & { ev?: PlannedEvent }).ev!;
      const at = lines.indexOf(block.find((l) => l.answer)!);
      answerTurns.set(ev, [s, at]);
    }
    sessions.push({ date: isoDay(date), turns: lines.map((l) => [l.speaker, l.text]) });
  }
  // Questions, from the templates (fixed before any tuning).
  for (const ev of events) {
    const name = people[ev.owner];
    const at = answerTurns.get(ev);
    if (!at) continue;
    const multiCat = ev.t.cat === "trip" || ev.t.multi;
    if (!multiCat) questions.push({ q: ev.t.q(name, ev.v), kind: ev.style === "direct" ? "single-hop" : "context", evidence: [at], answer: ev.t.answer(ev.v) });
    else if (ev.t.cat === "trip") questions.push({ q: ev.t.q(name, ev.v), kind: ev.style === "direct" ? "single-hop" : "context", evidence: [at], answer: ev.t.answer(ev.v) });
    if (ev.when) {
      const sessionDate = new Date(`${sessions[at[0]]!.date}T00:00:00Z`);
      const approx = isoDay(new Date(sessionDate.getTime() - ev.when[1] * 86_400_000));
      questions.push({ q: ev.t.qWhen(name, ev.v), kind: "temporal", evidence: [at], answer: `${ev.when[0]} before ${sessions[at[0]]!.date} (about ${approx})` });
    }
  }
  for (const owner of [0, 1] as const) {
    for (const t of T) {
      if (!t.multi) continue;
      const mine = events.filter((ev) => ev.owner === owner && ev.t === t && answerTurns.has(ev));
      questions.push({ q: t.multi(people[owner]), kind: "multi-hop", evidence: mine.map((ev) => answerTurns.get(ev)!), answer: mine.map((ev) => t.answer(ev.v)).join(", ") });
    }
  }
  return { id: `c${index}`, split: index < 4 ? "tune" : "heldout", speakers: [...people], sessions, questions };
}

const conversations = Array.from({ length: 8 }, (_, i) => makeConversation(i));
const turns = conversations.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
const questions = conversations.reduce((n, c) => n + c.questions.length, 0);
const out = {
  description:
    "Generated by bench/data/make-conversations.ts (deterministic). Conversations between two friends over 24 dated sessions; " +
    "each question lists its evidence turns as [session, turn] (0-based). Kinds: single-hop, context (the answer turn needs the turn before), " +
    "temporal (when), multi-hop (evidence over several sessions). Split: c0-c3 tune, c4-c7 heldout.",
  turns,
  questions,
  conversations,
};
await writeFile(new URL("./conversations-large.json", import.meta.url), JSON.stringify(out) + "\n");
console.log(`wrote bench/data/conversations-large.json: ${conversations.length} conversations, ${turns} turns, ${questions} questions`);
