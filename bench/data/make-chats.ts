/**
 * Generates bench/data/chats-dev2.json, the SECOND conversational development
 * set: `npx tsx bench/data/make-chats.ts`.
 *
 * Independent of make-conversations.ts by design, not by seed: that generator
 * fills one-line templates whose question repeats the answer's words; this
 * one plays hand-written multi-turn SCENES (each a short exchange written as
 * people talk: the topic named by one speaker, the fact given in a reply, a
 * "she"/"that place"/"it" pointing back, hedges and corrections) and asks
 * questions written in other words than the scene ("What kind of dog…" for
 * "a rescue whippet"). Every event has a first scene and, sessions later, a
 * call-back scene that adds to or corrects it (answers spread over sessions).
 * Relative dates ("last Tuesday", "two weeks ago") are resolved against the
 * session date in the answer. Between scenes: small talk that shares topic
 * words but answers nothing.
 *
 * Categories, as in LoCoMo-style benchmarks:
 * - `single-hop`: one scene holds the answer (often in the reply, not in the turn that names the topic);
 * - `multi-hop`: the answer needs turns from two or more sessions (a correction, a call-back, or several events);
 * - `temporal`: when something happened, answered by a relative date said in a turn;
 * - `open-domain`: an inference from what was said ("Would … enjoy …?"), evidence the turns it rests on.
 *
 * Split, fixed before any tuning: d0–d3 `tune`, d4–d7 `heldout`.
 */
import { writeFile } from "node:fs/promises";

let seed = 424242;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

type Kind = "single-hop" | "multi-hop" | "temporal" | "open-domain";
type Who = "o" | "f"; // the event's owner, their friend
/** One line of a scene: who says it, the text, and an optional evidence tag. */
type L = [Who, string, string?];
interface Q {
  q: string;
  kind: Kind;
  /** Evidence tags; "first:x" / "later:x" pick a tag of the first or the call-back scene. */
  tags: string[];
  answer: string;
}
interface Rel {
  phrase: string;
  /** Days before the session date, or a weekday to go back to. */
  days?: number;
  weekday?: number;
}
const RELS: Rel[] = [
  { phrase: "last Tuesday", weekday: 2 },
  { phrase: "on Saturday", weekday: 6 },
  { phrase: "last Friday", weekday: 5 },
  { phrase: "two weeks ago", days: 14 },
  { phrase: "yesterday", days: 1 },
  { phrase: "the day before yesterday", days: 2 },
  { phrase: "about ten days ago", days: 10 },
  { phrase: "last weekend", weekday: 6 },
  { phrase: "three weeks ago", days: 21 },
  { phrase: "on Monday", weekday: 1 },
];
function resolve(date: string, r: Rel): string {
  const d = new Date(`${date}T12:00:00Z`);
  if (r.days !== undefined) d.setUTCDate(d.getUTCDate() - r.days);
  else {
    let back = (d.getUTCDay() - r.weekday! + 7) % 7;
    if (back === 0) back = 7;
    d.setUTCDate(d.getUTCDate() - back);
  }
  return d.toISOString().slice(0, 10);
}

/** What a scene function gets: names, the slot values, the relative date phrase. */
interface Ctx {
  o: string;
  f: string;
  v: string[];
  when: string;
  /** Pronoun for the owner's third party (a relative, a colleague). */
  she: string;
}
interface EventType {
  id: string;
  values: string[][];
  first: Array<(c: Ctx) => L[]>;
  later: Array<(c: Ctx) => L[]>;
  questions: (c: Ctx, date: string) => Q[];
}

const EVENTS: EventType[] = [
  {
    id: "dog",
    values: [["whippet", "Pepper", "greyhound"], ["border collie", "Nutmeg", "spaniel"], ["dachshund", "Waffles", "beagle"], ["lurcher", "Socks", "terrier"], ["corgi", "Bramble", "shiba"], ["labrador", "Dot", "retriever"]],
    first: [
      ({ v, when }) => [["o", "So there's a new member of the household."], ["f", "Wait. Did you actually go to the shelter?"], ["o", `We did, ${when}. A rescue ${v[0]}, she's called ${v[1]} and she's terrified of the hoover.`, "fact"], ["f", "Oh my god, I need pictures immediately."]],
      ({ v, when }) => [["f", "How was your weekend, anything exciting?"], ["o", `We brought a dog home ${when}! ${v[1]}, a ${v[0]} from the rescue centre.`, "fact"], ["f", "Finally! You've wanted one for years."], ["o", "She's already stolen a sock."]],
    ],
    later: [
      ({ v }) => [["f", `How's ${v[1]} doing?`], ["o", `Funny story, the vet says she's actually part ${v[2]}, not a pure ${v[0]} at all.`, "more"], ["f", "Ha, a mystery mix then."]],
      ({ v }) => [["f", "Is the little one still scared of everything?"], ["o", `Much better. ${v[1]} did her first puppy class on Sunday and the trainer reckons she's part ${v[2]}.`, "more"], ["f", "Aw, a star pupil."]],
    ],
    questions: ({ o, v }, date) => [
      { q: `What kind of dog did ${o} adopt?`, kind: "single-hop", tags: ["first:fact"], answer: `a rescue ${v[0]}` },
      { q: `What is the name of ${o}'s pet?`, kind: "single-hop", tags: ["first:fact"], answer: v[1]! },
      { q: `When did ${o} get a dog from the shelter?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What breeds is ${o}'s dog a mix of, according to the vet?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: `${v[0]} and ${v[2]}` },
      { q: `Would ${o} be a good person to ask for advice about rescue animals?`, kind: "open-domain", tags: ["first:fact"], answer: "yes, adopted a rescue dog" },
    ],
  },
  {
    id: "job",
    values: [["Harrow & Pike", "paralegal", "Croydon"], ["Bluefin Studios", "sound designer", "Brighton"], ["St Anne's Hospice", "physiotherapist", "Leeds"], ["Quarry Lane Bakery", "head baker", "Bath"], ["Northwind Energy", "field engineer", "Aberdeen"], ["Kestrel Press", "copy editor", "Oxford"]],
    first: [
      ({ v }) => [["f", "Any news on the interview?"], ["o", "They rang this morning."], ["f", "And??"], ["o", `I got it! I'll be the new ${v[1]} at ${v[0]}.`, "fact"], ["f", "That's brilliant, drinks on you."]],
      ({ v, when }) => [["o", "I have to tell you something, I handed in my notice."], ["f", "What? Where are you going?"], ["o", `${v[0]} offered me a ${v[1]} role, I signed the contract ${when}.`, "fact"], ["f", "Wow, big change. Congratulations!"]],
    ],
    later: [
      ({ v }) => [["f", "How's the new place treating you?"], ["o", `Honestly the work is great but the commute to ${v[2]} is killing me.`, "more"], ["f", "Could you move closer?"], ["o", "Maybe next year."]],
      ({ v }) => [["f", "Still enjoying work?"], ["o", `Mostly. They want me in the ${v[2]} office three days a week now, which I didn't sign up for.`, "more"]],
    ],
    questions: ({ o, v }, date) => [
      { q: `Where does ${o} work now?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `What is ${o}'s new role?`, kind: "single-hop", tags: ["first:fact"], answer: v[1]! },
      { q: `When did ${o} accept the new job offer?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `In which town is the office of ${o}'s new employer?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[2]! },
      { q: `Is ${o} likely to be happy about the travel involved in their job?`, kind: "open-domain", tags: ["later:more"], answer: "no" },
    ],
  },
  {
    id: "sister",
    values: [["sister", "Imogen", "Lisbon", "architect"], ["sister", "Tess", "Montreal", "vet"], ["brother", "Callum", "Singapore", "chef"], ["brother", "Rafa", "Berlin", "DJ"], ["cousin", "Noor", "Melbourne", "surgeon"], ["sister", "Elsie", "Copenhagen", "teacher"]],
    first: [
      ({ v, when }) => [["o", `My ${v[0]} ${v[1]} dropped a bombshell ${when}.`], ["f", "Uh oh, good or bad?"], ["o", `Good I think? ${v[0] === "brother" ? "He's" : "She's"} moving to ${v[2]} for work.`, "fact"], ["f", "That's a long way."], ["o", "Tell me about it."]],
      ({ v, when }) => [["f", "How's the family?"], ["o", `All fine, except ${v[1]} announced ${when} that ${v[0] === "brother" ? "he's" : "she's"} off to ${v[2]}.`, "fact"], ["f", `Your ${v[0]}? For how long?`], ["o", "At least two years."]],
    ],
    later: [
      ({ v }) => [["f", `Has ${v[0] === "brother" ? "he" : "she"} settled in over there?`], ["o", `${v[1]} loves it, working as ${/^[aeiou]/.test(v[3]!) ? "an" : "a"} ${v[3]} for a local firm.`, "more"], ["f", "Sounds like the move was worth it."]],
      ({ v }) => [["f", "Did you ever visit that place your sibling moved to?"], ["o", `Not yet, but ${v[1]} says the ${v[3]} job is going really well.`, "more"]],
    ],
    questions: ({ o, v }, date) => [
      { q: `Where did ${o}'s ${v[0]} relocate to?`, kind: "single-hop", tags: ["first:fact"], answer: v[2]! },
      { q: `When did ${v[1]} tell ${o} about moving abroad?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What does ${o}'s ${v[0]} do for a living in the new city?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[3]! },
      { q: `Does ${o} have family living in another country?`, kind: "open-domain", tags: ["first:fact"], answer: `yes, ${v[1]} in ${v[2]}` },
    ],
  },
  {
    id: "race",
    values: [["half marathon", "Bristol", "1:58"], ["10k", "the Tower Bridge run", "49 minutes"], ["triathlon", "Windermere", "three hours"], ["marathon", "Manchester", "4:12"], ["trail race", "the Peak District", "2:30"], ["sprint triathlon", "Dorney Lake", "1:21"]],
    first: [
      ({ v }) => [["o", "My legs are in pieces."], ["f", "Why, what did you do to yourself?"], ["o", `I signed up for the ${v[0]} in ${v[1]} and started training this week.`, "fact"], ["f", "You're mad. When is it?"], ["o", "Not for a while, thankfully."]],
      ({ v }) => [["f", "You look tired."], ["o", `Training. I've entered a ${v[0]}, ${v[1]}, in the spring.`, "fact"], ["f", "Good for you, I could never."]],
    ],
    later: [
      ({ v, when }) => [["f", "So?? How did it go?"], ["o", `I finished! Did it ${when}, ${v[2]}, and I cried at the finish line.`, "more"], ["f", "That's amazing, you should be proud."]],
      ({ v, when }) => [["f", "Did you survive the big day?"], ["o", `Just about. Crossed the line ${when} in ${v[2]}.`, "more"], ["f", "Legend."]],
    ],
    questions: ({ o, v }, date) => [
      { q: `What endurance event did ${o} train for?`, kind: "single-hop", tags: ["first:fact"], answer: `${v[0]} in ${v[1]}` },
      { q: `What was ${o}'s finishing time?`, kind: "single-hop", tags: ["later:more"], answer: v[2]! },
      { q: `When did ${o} complete the race?`, kind: "temporal", tags: ["later:more"], answer: date },
      { q: `How did ${o}'s ${v[0]} in ${v[1]} go in the end?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: `finished in ${v[2]}` },
      { q: `Would ${o} probably enjoy an active holiday with lots of exercise?`, kind: "open-domain", tags: ["first:fact", "later:more"], answer: "yes" },
    ],
  },
  {
    id: "restaurant",
    values: [["Casa Lupita", "tacos al pastor", "Mexican"], ["Mirchi", "lamb biryani", "Indian"], ["Kin Noodle Bar", "dan dan noodles", "Sichuan"], ["Osteria Nove", "cacio e pepe", "Italian"], ["Little Seoul", "bibimbap", "Korean"], ["Zaatar", "mezze platter", "Lebanese"]],
    first: [
      ({ v, when }) => [["o", "Okay I've found a new favourite spot."], ["f", "Food or drink?"], ["o", `Food. ${v[0]}, the ${v[2]} place that opened by the station. We went ${when}.`, "fact"], ["f", "What should I order?"], ["o", `The ${v[1]}, no question.`, "dish"]],
      ({ v, when }) => [["f", "Where did you go for your birthday dinner in the end?"], ["o", `${v[0]}, ${when}.`, "fact"], ["f", "Never heard of it, any good?"], ["o", `Gorgeous. Their ${v[1]} is the best thing I've eaten all year.`, "dish"]],
    ],
    later: [
      ({ v }) => [["f", "I finally tried that place you recommended."], ["o", `${v[0]}? Did you get the ${v[1]}?`], ["f", "Obviously. Though the service was really slow.", "more"], ["o", "Oh no, they must have been busy."]],
      ({ v }) => [["o", `Bad news, ${v[0]} has closed for refurbishment.`, "more"], ["f", "Nooo, right when I wanted to go."], ["o", "Reopening in the summer apparently."]],
    ],
    questions: ({ o, v }, date) => [
      { q: `What restaurant did ${o} rave about?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `Which dish did ${o} recommend?`, kind: "single-hop", tags: ["first:dish"], answer: v[1]! },
      { q: `When did ${o} first eat at ${v[0]}?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What happened with the ${v[2]} restaurant after ${o} recommended it?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: "see call-back" },
      { q: `What cuisine does ${o} seem to enjoy?`, kind: "open-domain", tags: ["first:fact", "first:dish"], answer: v[2]! },
    ],
  },
  {
    id: "instrument",
    values: [["cello", "Mrs Okafor", "Bach"], ["saxophone", "a guy called Dev", "jazz standards"], ["piano", "an old teacher from school", "Chopin"], ["violin", "Marguerite", "folk tunes"], ["drums", "my neighbour Pete", "punk covers"], ["harp", "a lady at the conservatoire", "Celtic airs"]],
    first: [
      ({ v, when }) => [["o", "Don't laugh, but I've taken up something new."], ["f", "I would never laugh. Much."], ["o", `I had my first ${v[0]} lesson ${when}.`, "fact"], ["f", "Since when are you musical?"], ["o", `I'm not! ${v[1]} is very patient with me though.`, "teacher"]],
      ({ v }) => [["f", "What's that noise in the background?"], ["o", `That's me practising, I'm learning the ${v[0]}.`, "fact"], ["f", "Wow, who's teaching you?"], ["o", `${v[1]}. Once a week on Thursdays.`, "teacher"]],
    ],
    later: [
      ({ v }) => [["f", "How's the music going?"], ["o", `Slowly. I'm working on some ${v[2]} for a little recital.`, "more"], ["f", "Can I come?"], ["o", "Absolutely not."]],
      ({ v }) => [["f", "Still practising every day?"], ["o", `Most days. We've moved on to ${v[2]}, it's hard but I love it.`, "more"]],
    ],
    questions: ({ o, v }, date) => [
      { q: `Which instrument is ${o} learning?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `Who gives ${o} music lessons?`, kind: "single-hop", tags: ["first:teacher"], answer: v[1]! },
      { q: `When did ${o} start music lessons?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What kind of music is ${o} practising on the ${v[0]}?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[2]! },
      { q: `Is ${o} a confident performer?`, kind: "open-domain", tags: ["later:more"], answer: "no, refuses an audience" },
    ],
  },
  {
    id: "flat",
    values: [["a two-bed flat in Clapton", "the damp", "June"], ["a little terrace in Walthamstow", "the boiler", "August"], ["a canal boat", "the leaking roof", "spring"], ["a studio above a bakery", "the noise", "March"], ["a cottage outside Frome", "the mice", "October"], ["a flatshare in Leith", "the landlord", "January"]],
    first: [
      ({ v, when }) => [["f", "Did you go to that viewing?"], ["o", `I did, ${when}. And... I put in an offer.`, "fact"], ["f", "Shut up! What's it like?"], ["o", `It's ${v[0]}. Tiny but it's mine, or it will be.`, "fact2"]],
      ({ v }) => [["o", "We're moving!"], ["f", "Where to?"], ["o", `We found ${v[0]}, the paperwork's nearly done.`, "fact"], ["f", "So exciting."]],
    ],
    later: [
      ({ v }) => [["f", "How's the new place?"], ["o", `I love it apart from ${v[1]}. We've had someone round to look at it twice.`, "more"], ["f", "Ugh, old buildings."]],
      ({ v }) => [["f", "Settled in yet?"], ["o", `Nearly, except ${v[1]}, which is driving me up the wall.`, "more"], ["f", "Get it sorted before winter."]],
    ],
    questions: ({ o, v }, date) => [
      { q: `What kind of home did ${o} buy?`, kind: "single-hop", tags: ["first:fact", "first:fact2"], answer: v[0]! },
      { q: `When did ${o} go to the property viewing?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What problem does ${o} have with the place they moved into?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[1]! },
      { q: `Is ${o} renting or buying?`, kind: "open-domain", tags: ["first:fact"], answer: "buying" },
    ],
  },
  {
    id: "book",
    values: [["The Remains of the Day", "the butler", "Ishiguro"], ["Station Eleven", "the travelling orchestra", "Mandel"], ["Middlemarch", "Dorothea", "Eliot"], ["The Overstory", "the trees", "Powers"], ["Piranesi", "the house of statues", "Clarke"], ["Pachinko", "the family in Osaka", "Lee"]],
    first: [
      ({ v }) => [["f", "Read anything good lately?"], ["o", `Yes! ${v[0]}. I couldn't put it down.`, "fact"], ["f", "What's it about?"], ["o", `Mostly ${v[1]}. It made me cry on the bus.`, "about"]],
      ({ v }) => [["o", "My book club picked something I actually liked for once."], ["f", "Miracle. Which one?"], ["o", `${v[0]}, by ${v[2]}.`, "fact"], ["f", "Is it sad?"], ["o", `Very. It's all about ${v[1]}.`, "about"]],
    ],
    later: [
      ({ v }) => [["f", "Did your book club like that novel?"], ["o", `Half of them hated it! Someone called ${v[2]} overrated and I nearly left.`, "more"], ["f", "Ha, literary beef."]],
      ({ v }) => [["o", `I lent my copy of ${v[0]} to my mum and she's obsessed now.`, "more"], ["f", "You've created a monster."]],
    ],
    questions: ({ o, v }) => [
      { q: `Which novel did ${o} enjoy recently?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `What is the book ${o} recommended about?`, kind: "single-hop", tags: ["first:about"], answer: v[1]! },
      { q: `How did other people react to the book ${o} loved?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: "see call-back" },
      { q: `Does ${o} enjoy literary fiction?`, kind: "open-domain", tags: ["first:fact", "first:about"], answer: "yes" },
    ],
  },
  {
    id: "injury",
    values: [["my wrist", "bouldering", "a sprain"], ["my ankle", "five-a-side", "a torn ligament"], ["my knee", "skiing", "a bruised kneecap"], ["my shoulder", "paddleboarding", "a dislocation"], ["my back", "moving a sofa", "a slipped disc"], ["my collarbone", "cycling", "a hairline fracture"]],
    first: [
      ({ v, when }) => [["f", "Why are you typing with one hand?"], ["o", `I did something stupid to ${v[0]} ${when}, ${v[1]}.`, "fact"], ["f", "Ouch! Is it broken?"], ["o", "Waiting on the x-ray results."]],
      ({ v, when }) => [["o", "I'm officially an invalid."], ["f", "What happened?"], ["o", `Hurt ${v[0]} ${v[1]} ${when}. Totally my own fault.`, "fact"], ["f", "Poor you."]],
    ],
    later: [
      ({ v }) => [["f", "How's the injury?"], ["o", `Turns out it was ${v[2]}. Physio twice a week for a month.`, "more"], ["f", "At least you know now."]],
      ({ v }) => [["f", "Did the doctor get back to you?"], ["o", `Yes, ${v[2]}, so no more ${v[1]} for a while.`, "more"]],
    ],
    questions: ({ o, v }, date) => [
      { q: `How did ${o} get hurt?`, kind: "single-hop", tags: ["first:fact"], answer: v[1]! },
      { q: `When did ${o} injure themselves?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What was the diagnosis of ${o}'s injury?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[2]! },
    ],
  },
  {
    id: "trip",
    values: [["Porto", "the port cellars", "rained every day"], ["Kraków", "the salt mine", "got food poisoning"], ["Hokkaido", "the hot springs", "lost a passport"], ["Sicily", "Mount Etna", "the hire car broke down"], ["Tbilisi", "the sulphur baths", "missed the flight home"], ["the Faroe Islands", "the puffin cliffs", "got stuck in fog"]],
    first: [
      ({ v }) => [["o", "We've booked our holiday!"], ["f", "Finally, where?"], ["o", `${v[0]}. I've wanted to go there since uni.`, "fact"], ["f", "Jealous. What's the plan?"], ["o", `Mainly eating, and ${v[1]}.`, "plan"]],
      ({ v }) => [["f", "Are you going away this year?"], ["o", `Yes, we're off to ${v[0]} in a few weeks.`, "fact"], ["f", "Lovely. Anything you have to see?"], ["o", `Everyone says ${v[1]}.`, "plan"]],
    ],
    later: [
      ({ v, when }) => [["f", "Welcome back! How was it?"], ["o", `Mixed. We got back ${when}. Loved ${v[1]} but we ${v[2]}.`, "more"], ["f", "Oh no, the classic holiday disaster."]],
      ({ v, when }) => [["f", "You're back! Tell me everything."], ["o", `Landed ${when}. The place was beautiful, though we ${v[2]}.`, "more"], ["f", "Ha, you'll laugh about it one day."]],
    ],
    questions: ({ o, v }, date) => [
      { q: `Where did ${o} go on holiday?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `When did ${o} get back from the trip?`, kind: "temporal", tags: ["later:more"], answer: date },
      { q: `What went wrong on ${o}'s holiday?`, kind: "single-hop", tags: ["later:more"], answer: v[2]! },
      { q: `What sight did ${o} plan to see abroad, and did they enjoy the trip?`, kind: "multi-hop", tags: ["first:plan", "later:more"], answer: v[1]! },
      { q: `Would ${o} describe the trip as perfect?`, kind: "open-domain", tags: ["later:more"], answer: "no" },
    ],
  },
  {
    id: "diet",
    values: [["gone vegetarian", "meat", "lentil dal"], ["given up sugar", "sweets", "date balls"], ["gone dairy-free", "cheese", "oat milk porridge"], ["started eating vegan", "eggs", "tofu scramble"], ["stopped drinking alcohol", "wine", "kombucha"], ["cut out caffeine", "coffee", "rooibos tea"]],
    first: [
      ({ v, when }) => [["f", "Want to get burgers on Friday?"], ["o", `Ah, I can't, I've ${v[0]}. Started ${when}.`, "fact"], ["f", "Since when? You?"], ["o", "I know. Doctor's orders, kind of."]],
      ({ v }) => [["o", `Confession: I've ${v[0]}.`, "fact"], ["f", "Is this a new year thing?"], ["o", "No, I just felt rubbish all the time."]],
    ],
    later: [
      ({ v }) => [["f", "Still sticking to the new diet?"], ["o", `Mostly! I miss ${v[1]} but I've got really into ${v[2]}.`, "more"], ["f", "Send me the recipe."]],
      ({ v }) => [["f", "Did you cave yet?"], ["o", `Once, at a wedding, I had ${v[1]}. Otherwise I live on ${v[2]}.`, "more"]],
    ],
    questions: ({ o, v }, date) => [
      { q: `What change did ${o} make to their eating habits?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `When did ${o} change their diet?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What has ${o} been having instead since changing diet?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[2]! },
      { q: `What should ${o}'s friends avoid serving at a dinner party?`, kind: "open-domain", tags: ["first:fact"], answer: v[1]! },
    ],
  },
  {
    id: "colleague",
    values: [["Marcus", "took credit for my report", "apologised in front of everyone"], ["Sian", "keeps booking meetings at 8am", "moved the meetings to ten"], ["Bogdan", "eats my lunch from the fridge", "bought me a sandwich"], ["Hollie", "talks over me in every call", "asked me to lead the next project"], ["Tariq", "microwaves fish at his desk", "got a warning from HR"], ["Wendy", "copies me on every email", "finally stopped"]],
    first: [
      ({ v }) => [["o", "I need to vent about someone at work."], ["f", "Go on, I'm listening."], ["o", `${v[0]}. He ${v[1]}. Again.`, "fact"], ["f", "Have you said anything to him?"], ["o", "Not yet, I'm plotting."]],
      ({ v }) => [["f", "You seem stressed."], ["o", `It's ${v[0]} from my team, ${v[1]}.`, "fact"], ["f", "Sounds exhausting."]],
    ],
    later: [
      ({ v }) => [["f", "Any update on that annoying coworker?"], ["o", `You won't believe it, he ${v[2]}.`, "more"], ["f", "Character development!"]],
      ({ v }) => [["f", "Is that guy still bothering you?"], ["o", `It's sorted. ${v[0]} ${v[2]}, so we're fine now.`, "more"]],
    ],
    questions: ({ o, v }) => [
      { q: `Which coworker has been annoying ${o}?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `What did ${o}'s colleague ${v[0]} do that bothered them?`, kind: "single-hop", tags: ["first:fact"], answer: v[1]! },
      { q: `How was the situation with ${o}'s difficult colleague resolved?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[2]! },
    ],
  },
  {
    id: "car",
    values: [["an old Volvo estate", "£1,800", "the clutch went"], ["a second-hand Fiat 500", "£3,200", "a tyre blew out"], ["an electric Kia", "lease", "the charger broke"], ["a camper van", "£9,000", "the gearbox failed"], ["a vintage Mini", "£4,500", "it wouldn't start in the cold"], ["a Toyota hybrid", "£6,000", "someone dented it"]],
    first: [
      ({ v, when }) => [["o", "I'm a driver again!"], ["f", "You bought a car?"], ["o", `Picked it up ${when}: ${v[0]}, ${v[1]}.`, "fact"], ["f", "Very you."]],
      ({ v, when }) => [["f", "How are you getting to work now the trains are on strike?"], ["o", `I caved and bought ${v[0]} ${when}.`, "fact"], ["f", "Ha, the strikes win."], ["o", `It was ${v[1]}, so not the end of the world.`, "price"]],
    ],
    later: [
      ({ v }) => [["f", "How's the motor?"], ["o", `Don't. ${cap(v[2])} on the motorway last week.`, "more"], ["f", "Nightmare, were you okay?"], ["o", "Fine, just poorer."]],
      ({ v }) => [["f", "Still loving the car?"], ["o", `Less so since ${v[2]}.`, "more"]],
    ],
    questions: ({ o, v }, date) => [
      { q: `What vehicle did ${o} buy?`, kind: "single-hop", tags: ["first:fact"], answer: v[0]! },
      { q: `When did ${o} buy the car?`, kind: "temporal", tags: ["first:fact"], answer: date },
      { q: `What trouble has ${o} had with the vehicle they bought?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[2]! },
    ],
  },
  {
    id: "garden",
    values: [["tomatoes", "courgettes", "slugs"], ["chillies", "basil", "aphids"], ["strawberries", "lettuce", "pigeons"], ["potatoes", "beans", "the frost"], ["sunflowers", "sweet peas", "the neighbour's cat"], ["runner beans", "kale", "caterpillars"]],
    first: [
      ({ v, when }) => [["o", "I got an allotment!"], ["f", "After years on the waiting list?"], ["o", `Yep, got the keys ${when}. First job is planting ${v[0]} and ${v[1]}.`, "fact"], ["f", "Look at you, all green-fingered."]],
      ({ v }) => [["f", "What are you doing this weekend?"], ["o", `Gardening. I've turned the back yard into a veg patch, ${v[0]} and ${v[1]} so far.`, "fact"], ["f", "Very wholesome."]],
    ],
    later: [
      ({ v }) => [["f", "How's the veg doing?"], ["o", `Disaster. ${cap(v[2])} got most of it.`, "more"], ["f", "Noo, all that work."]],
      ({ v }) => [["f", "Any harvest yet?"], ["o", `A little, but ${v[2]} keep wrecking things.`, "more"]],
    ],
    questions: ({ o, v }, date) => [
      { q: `What is ${o} growing?`, kind: "single-hop", tags: ["first:fact"], answer: `${v[0]} and ${v[1]}` },
      { q: `What ruined ${o}'s vegetables?`, kind: "multi-hop", tags: ["first:fact", "later:more"], answer: v[2]! },
      { q: `Does ${o} enjoy spending time outdoors?`, kind: "open-domain", tags: ["first:fact"], answer: "yes" },
      { q: `When did ${o} start the vegetable garden?`, kind: "temporal", tags: ["first:fact"], answer: date },
    ],
  },
];

function cap(s: string): string {
  return s[0]!.toUpperCase() + s.slice(1);
}

/** Small talk: exchanges that share words with the scenes (dog, work, holiday, food) but answer nothing. */
const SMALL: Array<(o: string, f: string) => L[]> = [
  () => [["o", "Morning! How are you?"], ["f", "Tired, but fine. You?"], ["o", "Same old, same old."]],
  () => [["f", "This weather is grim, isn't it."], ["o", "I've forgotten what the sun looks like."]],
  () => [["o", "My neighbour's dog barked all night again."], ["f", "Ugh, earplugs time."]],
  () => [["f", "Work has been so busy this month."], ["o", "Same, everyone wants everything yesterday."]],
  () => [["o", "I really need a holiday."], ["f", "Don't we all."]],
  () => [["f", "Did you watch the match?"], ["o", "Only the second half, what a finish."]],
  () => [["o", "I made a curry last night and it was too spicy to eat."], ["f", "Ha, rookie mistake."]],
  () => [["f", "My mum keeps sending me recipes on WhatsApp."], ["o", "Mine sends me articles about car crashes."]],
  () => [["o", "Sorry I went quiet, it's been a week."], ["f", "No worries at all."]],
  () => [["f", "Have you seen that new show everyone's talking about?"], ["o", "Not yet, no spoilers please."]],
  () => [["o", "I walked past that new bakery again, the queue was huge."], ["f", "Must be good then."]],
  () => [["f", "The trains were a mess this morning."], ["o", "When are they not?"]],
  () => [["o", "Anyway, enough about me. What's new with you?"], ["f", "Honestly, not much."]],
  () => [["f", "I should go, dinner's ready."], ["o", "Talk soon!"]],
  () => [["o", "I've been sleeping so badly."], ["f", "Have you tried no phone before bed?"], ["o", "I have not, and I will not."]],
  () => [["f", "My sister wants to get a cat now."], ["o", "Everyone's getting pets lately."]],
  () => [["o", "Did I tell you the office is moving floors?"], ["f", "Exciting. Or not."], ["o", "Not. Definitely not."]],
  () => [["f", "I started a new book but I keep falling asleep after two pages."], ["o", "That's a sign of a good book, or a bad one."]],
  () => [["o", "We should plan a trip somewhere together this year."], ["f", "Yes! Somewhere warm."], ["o", "Let's actually do it this time."]],
  () => [["f", "My knee has been clicking when I take the stairs."], ["o", "That's just getting old, welcome."]],
  () => [["o", "There's a new Thai place opening near me."], ["f", "Let me know if it's any good."]],
  () => [["f", "The car park at the supermarket was chaos."], ["o", "Saturday shopping is a mistake every time."]],
  () => [["o", "I spent the whole evening watering plants and tidying the balcony."], ["f", "Very relaxing though."]],
  () => [["f", "Ha, that reminds me of my uncle."], ["o", "The one with the boat?"], ["f", "That's him."]],
];

const PAIRS: Array<[string, string]> = [
  ["Priya", "Dan"],
  ["Jonas", "Amara"],
  ["Lucia", "Ben"],
  ["Ruth", "Idris"],
  ["Beatriz", "Sam"],
  ["Fionn", "Aisha"],
  ["Mireille", "Kwame"],
  ["Tomasz", "Hana"],
];
const STARTS = ["2023-03-04", "2024-01-20", "2022-09-10", "2023-07-15", "2024-05-02", "2022-02-12", "2023-10-07", "2024-08-24"];
const SESSIONS = 16;

interface Out {
  id: string;
  split: "tune" | "heldout";
  speakers: [string, string];
  sessions: Array<{ date: string; turns: Array<[string, string]> }>;
  questions: Array<{ q: string; kind: Kind; evidence: Array<[number, number]>; answer: string }>;
}

const conversations: Out[] = PAIRS.map(([a, b], ci) => {
  const dates: string[] = [];
  const d = new Date(`${STARTS[ci]}T12:00:00Z`);
  for (let s = 0; s < SESSIONS; s++) {
    dates.push(d.toISOString().slice(0, 10));
    d.setUTCDate(d.getUTCDate() + 6 + Math.floor(rand() * 14));
  }
  // Every event type once per conversation; owners alternate; first scene in sessions 0–9, call-back 2–5 sessions later.
  const plan: Array<{ ev: EventType; owner: Who; v: string[]; first: number; later: number }> = EVENTS.map((ev, i) => {
    const first = Math.floor(rand() * 10);
    return { ev, owner: (i + ci) % 2 === 0 ? "o" : "f", v: ev.values[(ci + i) % ev.values.length]!, first, later: Math.min(SESSIONS - 1, first + 2 + Math.floor(rand() * 4)) };
  });
  const sessions: Out["sessions"] = dates.map((date) => ({ date, turns: [] }));
  const tagAt = new Map<string, [number, number]>();
  const whenDate = new Map<string, string>();
  const whenPhrase = new Map<string, string>();
  const content: Array<Array<{ lines: L[]; ownerName: string; friendName: string; key?: string }>> = dates.map(() => []);
  for (const p of plan) {
    const ownerName = p.owner === "o" ? a : b;
    const friendName = p.owner === "o" ? b : a;
    for (const [part, s] of [["first", p.first], ["later", p.later]] as const) {
      const rel = pick(RELS);
      const ctx: Ctx = { o: ownerName, f: friendName, v: p.v, when: rel.phrase, she: "she" };
      const scene = pick(part === "first" ? p.ev.first : p.ev.later)(ctx);
      if (scene.some(([, text]) => text.includes(rel.phrase))) {
        whenDate.set(`${p.ev.id}:${part}`, resolve(dates[s]!, rel));
        whenPhrase.set(`${p.ev.id}:${part}`, rel.phrase);
      }
      content[s]!.push({ lines: scene, ownerName, friendName, key: `${p.ev.id}:${part}` });
    }
  }
  for (const [s, blocks] of content.entries()) {
    const pieces: Array<{ lines: L[]; ownerName: string; friendName: string; key?: string }> = [...blocks];
    const small = 5 + Math.floor(rand() * 5);
    const talk = [...SMALL].sort(() => rand() - 0.5);
    for (let i = 0; i < small; i++) pieces.push({ lines: talk[i % talk.length]!(a, b), ownerName: rand() < 0.5 ? a : b, friendName: "" });
    // Opening small talk first, the rest shuffled.
    const [opening, ...rest] = pieces.slice(blocks.length).concat(pieces.slice(0, blocks.length));
    for (let i = rest.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [rest[i], rest[j]] = [rest[j]!, rest[i]!];
    }
    for (const piece of [opening!, ...rest]) {
      const other = piece.ownerName === a ? b : a;
      for (const [who, text, tag] of piece.lines) {
        const speaker = who === "o" ? piece.ownerName : other;
        if (tag && piece.key) tagAt.set(`${piece.key}:${tag}`, [s, sessions[s]!.turns.length]);
        const w = piece.key ? whenPhrase.get(piece.key) : undefined;
        if (w && text.includes(w)) tagAt.set(`${piece.key}:when`, [s, sessions[s]!.turns.length]);
        sessions[s]!.turns.push([speaker, text]);
      }
    }
  }
  const questions: Out["questions"] = [];
  for (const p of plan) {
    const ownerName = p.owner === "o" ? a : b;
    const ctx: Ctx = { o: ownerName, f: p.owner === "o" ? b : a, v: p.v, when: "", she: "she" };
    for (const q of p.ev.questions(ctx, "")) {
      // A temporal question's evidence is the turn that says when (which may not be the fact's turn).
      const tags = q.kind === "temporal" ? [`${q.tags[0]!.split(":")[0]}:when`] : q.tags;
      if (q.kind === "temporal" && !whenDate.has(`${p.ev.id}:${tags[0]!.split(":")[0]}`)) continue; // the scene drawn said no date
      // A tag only some variants of a scene carry (e.g. "fact2") is left out when the drawn variant lacks it.
      const evidence = tags.map((t) => tagAt.get(`${p.ev.id}:${t}`)).filter((e): e is [number, number] => e !== undefined);
      if (evidence.length === 0) throw new Error(`no evidence for ${p.ev.id}: ${q.q}`);
      let answer = q.answer;
      if (q.kind === "temporal") {
        const part = q.tags[0]!.split(":")[0];
        const resolved = whenDate.get(`${p.ev.id}:${part}`);
        answer = resolved!;
      }
      questions.push({ q: q.q, kind: q.kind, evidence: [...new Map(evidence.map((e) => [e.join(","), e])).values()], answer });
    }
  }
  return { id: `d${ci}`, split: ci < 4 ? "tune" : "heldout", speakers: [a, b], sessions, questions };
});

const turns = conversations.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
const questions = conversations.reduce((n, c) => n + c.questions.length, 0);
const out = {
  description:
    "Generated by bench/data/make-chats.ts (deterministic): the second, independent development set. Two friends over 16 dated sessions per conversation; hand-written multi-turn scenes with coreference, call-backs and corrections, relative dates resolved in the answers, questions phrased unlike the turns. Evidence as [session, turn] (0-based). Kinds: single-hop, multi-hop, temporal, open-domain. Split fixed before tuning: d0-d3 tune, d4-d7 heldout.",
  turns,
  questions,
  conversations,
};
await writeFile(new URL("./chats-dev2.json", import.meta.url), JSON.stringify(out));
console.log(`${conversations.length} conversations, ${turns} turns, ${questions} questions`);
