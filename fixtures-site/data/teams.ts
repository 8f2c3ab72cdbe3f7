/**
 * The league's teams, their home grounds and squads. Squads are drawn once from the fixed data
 * seed, so every start of the site shows the same players.
 */
import { createPrng, seedFrom } from "./prng.js";

export interface Team {
  name: string;
  /** The team's home ground, used as the venue of its home matches. */
  venue: string;
  /** Eleven players in batting order; the last five or six bowl, index 3 keeps wicket. */
  players: string[];
}

const TEAM_GROUNDS: ReadonlyArray<[string, string]> = [
  ["Pune Pioneers", "Deccan Oval, Pune"],
  ["Jaipur Kites", "Pink City Ground, Jaipur"],
  ["Mumbai Mariners", "Marine Drive Stadium, Mumbai"],
  ["Chennai Chargers", "Marina Park, Chennai"],
  ["Delhi Dynamos", "Yamuna Ground, Delhi"],
  ["Kolkata Comets", "Hooghly Oval, Kolkata"],
  ["Bengaluru Blazers", "Garden City Stadium, Bengaluru"],
  ["Hyderabad Hawks", "Charminar Ground, Hyderabad"],
];

const FIRST_NAMES = [
  "Aarav",
  "Rohan",
  "Vikram",
  "Arjun",
  "Kabir",
  "Nikhil",
  "Rahul",
  "Sanjay",
  "Dev",
  "Ishaan",
  "Manish",
  "Yash",
  "Kunal",
  "Aditya",
  "Pranav",
  "Harsh",
  "Varun",
  "Siddharth",
  "Tarun",
  "Omkar",
  "Rajat",
  "Ankit",
  "Deepak",
  "Gaurav",
  "Karan",
  "Mohit",
  "Naveen",
  "Pavan",
  "Ravi",
  "Suresh",
];
const SURNAMES = [
  "Sharma",
  "Patil",
  "Iyer",
  "Rao",
  "Singh",
  "Kulkarni",
  "Mehta",
  "Nair",
  "Desai",
  "Joshi",
  "Reddy",
  "Bose",
  "Gill",
  "Pandey",
  "Kumar",
  "Chopra",
  "Menon",
  "Verma",
  "Shetty",
  "Das",
  "Pillai",
  "Saxena",
  "Bhat",
  "Sethi",
  "Malik",
];

/** The seed every squad (and, in matches.ts, every match) is derived from. */
export const DATA_SEED = 20240503;

function squad(teamName: string, taken: Set<string>): string[] {
  const prng = createPrng(seedFrom(DATA_SEED, `squad:${teamName}`));
  const players: string[] = [];
  while (players.length < 11) {
    const name = `${prng.pick(FIRST_NAMES)} ${prng.pick(SURNAMES)}`;
    if (taken.has(name)) continue; // unique across the league, so a name identifies a team
    taken.add(name);
    players.push(name);
  }
  return players;
}

function buildTeams(): Map<string, Team> {
  const taken = new Set<string>();
  return new Map(TEAM_GROUNDS.map(([name, venue]) => [name, { name, venue, players: squad(name, taken) }]));
}

const TEAMS = buildTeams();

/** Every team, in league order. */
export function listTeams(): Team[] {
  return [...TEAMS.values()];
}

/** A team by its exact name; throws on an unknown name (a bug in the match specs). */
export function teamNamed(name: string): Team {
  const team = TEAMS.get(name);
  if (!team) throw new Error(`fixtures-site data: unknown team '${name}' (known: ${[...TEAMS.keys()].join(", ")})`);
  return team;
}
