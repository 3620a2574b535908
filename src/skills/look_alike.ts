/**
 * Cross-script look-alike names: the part of a Unicode TR39 confusables
 * skeleton that matters for skill names. A skill name is compared after
 * {@linkcode skillNameKey} (NFKC + case fold); this adds, on top, that a
 * letter or digit of another script drawn like a Latin letter or digit
 * (Cyrillic `а`, `р`, `е`, Greek `ο`, `ν`, ...) counts as that letter.
 *
 * Why a table of our own and not a package: the npm candidates either ship
 * old data (`unhomoglyph` 1.0.6: confusables.txt of Unicode 13.0 as a 100 KB
 * CommonJS JSON) or map ASCII to ASCII as the full skeleton does (`m` ->
 * `rn`, `1` -> `l`, `0` -> `o`), which would refuse honest pairs such as
 * `burn` and `bum`; only the non-ASCII -> ASCII part is wanted here. The
 * table below is that part, bounded and reviewable.
 *
 * @module
 */

import { skillNameKey } from "./names.ts";

/**
 * Each ASCII lowercase letter or digit with the code points drawn like it.
 * Derived from Unicode confusables.txt (13.0, as shipped in npm
 * `unhomoglyph@1.0.6`, MIT): every entry whose source is one code point
 * outside ASCII that is a letter or number (either case: the map is applied
 * before case folding, so uppercase palochka `Ӏ`, drawn like `l`, is not
 * first folded to `ӏ`, drawn like `i`) unchanged by NFKC, and whose
 * prototype, lowercased, is one ASCII letter or digit.
 */
const LOOK_ALIKES: readonly (readonly [string, string])[] = [
  ["2", "\u{a75a}\u{1a7}\u{3e8}\u{a644}\u{14bf}\u{a6ef}"],
  ["3", "\u{a7ab}\u{21c}\u{1b7}\u{a76a}\u{2ccc}\u{417}\u{4e0}\u{16f3b}\u{118ca}"],
  ["4", "\u{13ce}\u{118af}"],
  ["5", "\u{1bc}\u{118bb}"],
  ["6", "\u{2cd2}\u{431}\u{13ee}\u{118d5}"],
  ["7", "\u{104d2}\u{118c6}"],
  ["8", "\u{9ea}\u{a6a}\u{1e8cb}\u{223}\u{222}\u{1031a}"],
  ["9", "\u{a67}\u{b68}\u{9ed}\u{d6d}\u{a76e}\u{2cca}\u{118cc}\u{118ac}\u{118d6}"],
  ["a", "\u{251}\u{3b1}\u{430}\u{391}\u{410}\u{13aa}\u{15c5}\u{a4ee}\u{16f40}\u{102a0}"],
  [
    "b",
    "\u{184}\u{42c}\u{13cf}\u{1472}\u{15af}\u{a7b4}\u{392}\u{412}\u{13f4}\u{15f7}\u{a4d0}\u{10282}\u{102a1}\u{10301}",
  ],
  [
    "c",
    "\u{1d04}\u{2ca5}\u{441}\u{abaf}\u{1043d}\u{118f2}\u{118e9}\u{2ca4}\u{421}\u{13df}\u{a4da}\u{102a2}\u{10302}\u{10415}\u{1051c}",
  ],
  ["d", "\u{501}\u{13e7}\u{146f}\u{a4d2}\u{13a0}\u{15de}\u{15ea}\u{a4d3}"],
  ["e", "\u{ab32}\u{435}\u{4bd}\u{395}\u{415}\u{2d39}\u{13ac}\u{a4f0}\u{118a6}\u{118ae}\u{10286}"],
  [
    "f",
    "\u{ab35}\u{a799}\u{1e9d}\u{584}\u{a798}\u{3dc}\u{15b4}\u{a4dd}\u{118c2}\u{118a2}\u{10287}\u{102a5}\u{10525}",
  ],
  ["g", "\u{261}\u{1d83}\u{18d}\u{581}\u{50c}\u{13c0}\u{13f3}\u{a4d6}"],
  ["h", "\u{4bb}\u{570}\u{13c2}\u{397}\u{2c8e}\u{41d}\u{13bb}\u{157c}\u{a4e7}\u{102cf}"],
  ["i", "\u{131}\u{26a}\u{269}\u{3b9}\u{456}\u{a647}\u{4cf}\u{ab75}\u{13a5}\u{118c3}"],
  ["j", "\u{3f3}\u{458}\u{a7b2}\u{37f}\u{408}\u{13ab}\u{148d}\u{a4d9}"],
  ["k", "\u{39a}\u{2c94}\u{41a}\u{13e6}\u{16d5}\u{a4d7}\u{10518}"],
  [
    "l",
    "\u{661}\u{6f1}\u{10320}\u{1e8c7}\u{196}\u{1c0}\u{399}\u{2c92}\u{406}\u{4c0}\u{5d5}\u{5df}\u{627}\u{7ca}\u{2d4f}\u{16c1}\u{a4f2}\u{16f28}\u{1028a}\u{10309}\u{2cd0}\u{13de}\u{14aa}\u{a4e1}\u{16f16}\u{118a3}\u{118b2}\u{1041b}\u{10526}",
  ],
  ["m", "\u{39c}\u{3fa}\u{2c98}\u{41c}\u{13b7}\u{15f0}\u{16d6}\u{a4df}\u{102b0}\u{10311}"],
  ["n", "\u{578}\u{57c}\u{39d}\u{2c9a}\u{a4e0}\u{10513}"],
  [
    "o",
    "\u{966}\u{a66}\u{ae6}\u{be6}\u{c66}\u{ce6}\u{d66}\u{e50}\u{ed0}\u{1040}\u{665}\u{6f5}\u{1d0f}\u{1d11}\u{ab3d}\u{3bf}\u{3c3}\u{2c9f}\u{43e}\u{10ff}\u{585}\u{5e1}\u{647}\u{6be}\u{6c1}\u{6d5}\u{d20}\u{101d}\u{104ea}\u{118c8}\u{118d7}\u{1042c}\u{7c0}\u{9e6}\u{b66}\u{3007}\u{114d0}\u{118e0}\u{39f}\u{2c9e}\u{41e}\u{555}\u{2d54}\u{12d0}\u{b20}\u{104c2}\u{a4f3}\u{118b5}\u{10292}\u{102ab}\u{10404}\u{10516}",
  ],
  ["p", "\u{3c1}\u{2ca3}\u{440}\u{3a1}\u{2ca2}\u{420}\u{13e2}\u{146d}\u{a4d1}\u{10295}"],
  ["q", "\u{51b}\u{563}\u{566}\u{2d55}"],
  [
    "r",
    "\u{ab47}\u{ab48}\u{1d26}\u{2c85}\u{433}\u{ab81}\u{1a6}\u{13a1}\u{13d2}\u{104b4}\u{1587}\u{a4e3}\u{16f35}",
  ],
  [
    "s",
    "\u{a731}\u{1bd}\u{455}\u{abaa}\u{118c1}\u{10448}\u{405}\u{54f}\u{13d5}\u{13da}\u{a4e2}\u{16f3a}\u{10296}\u{10420}",
  ],
  ["t", "\u{3a4}\u{2ca6}\u{422}\u{13a2}\u{a4d4}\u{16f0a}\u{118bc}\u{10297}\u{102b1}\u{10315}"],
  [
    "u",
    "\u{a79f}\u{1d1c}\u{ab4e}\u{ab52}\u{28b}\u{3c5}\u{57d}\u{104f6}\u{118d8}\u{54d}\u{1200}\u{104ce}\u{144c}\u{a4f4}\u{16f42}\u{118b8}",
  ],
  [
    "v",
    "\u{1d20}\u{3bd}\u{475}\u{5d8}\u{11706}\u{aba9}\u{118c0}\u{667}\u{6f7}\u{474}\u{2d38}\u{13d9}\u{142f}\u{a6df}\u{a4e6}\u{16f08}\u{118a0}\u{1051d}",
  ],
  [
    "w",
    "\u{26f}\u{1d21}\u{461}\u{51d}\u{561}\u{1170a}\u{1170e}\u{1170f}\u{ab83}\u{118ef}\u{118e6}\u{51c}\u{13b3}\u{13d4}\u{a4ea}",
  ],
  [
    "x",
    "\u{445}\u{1541}\u{157d}\u{10322}\u{118ec}\u{a7b3}\u{3a7}\u{2cac}\u{425}\u{2d5d}\u{16b7}\u{a4eb}\u{10290}\u{102b4}\u{10317}\u{10527}",
  ],
  [
    "y",
    "\u{263}\u{1d8c}\u{28f}\u{1eff}\u{ab5a}\u{3b3}\u{443}\u{4af}\u{10e7}\u{118dc}\u{3a5}\u{2ca8}\u{423}\u{4ae}\u{13a9}\u{13bd}\u{a4ec}\u{16f43}\u{118a4}\u{102b2}",
  ],
  ["z", "\u{1d22}\u{ab93}\u{118c4}\u{102f5}\u{118e5}\u{396}\u{13c3}\u{a4dc}\u{118a9}"],
];

/** Code point -> the ASCII letter or digit it is drawn like. */
const PROTOTYPE: ReadonlyMap<string, string> = new Map(
  LOOK_ALIKES.flatMap(([ascii, alikes]) => [...alikes].map((alike) => [alike, ascii] as const)),
);

/** `text` decomposed (NFD), each code point in the table replaced by its ASCII prototype. */
function toPrototypes(text: string): string {
  let out = "";
  for (const char of text.normalize("NFD")) out += PROTOTYPE.get(char) ?? char;
  return out;
}

/**
 * The key under which two skill names look alike: the name in NFKC,
 * decomposed (NFD, so a base letter stands alone before its accents), each
 * code point in the table replaced by the ASCII letter or digit it is drawn
 * like, then {@linkcode skillNameKey} (case fold), the table once more (for a
 * letter whose lowercase only is in it), composed again (NFC). Two ASCII
 * names get the same key only when {@linkcode skillNameKey} already matches
 * (ASCII is never mapped).
 *
 * @param name A served skill name.
 * @returns The comparison key (never shown).
 *
 * Rule source: Unicode TR39 ("Unicode Security Mechanisms"), confusable
 * detection; newcomer 7 (Latin `pdf` and Cyrillic `рdf` served side by side).
 */
export function lookAlikeKey(name: string): string {
  return toPrototypes(skillNameKey(toPrototypes(name.normalize("NFKC")))).normalize("NFC");
}

/**
 * Whether two names differ after NFKC and case folding but look alike.
 *
 * @param a A skill name.
 * @param b Another.
 * @returns True when only the look-alike table makes them one name.
 */
export function isLookAlikeOnly(a: string, b: string): boolean {
  return skillNameKey(a) !== skillNameKey(b) && lookAlikeKey(a) === lookAlikeKey(b);
}
