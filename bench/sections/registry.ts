/**
 * Every benchmark section, in the order they run and print. To add one:
 * write `bench/sections/<id>.ts` exporting a {@linkcode BenchSection} (see
 * `startup_and_listing.ts` and bench/README.md), then add it to this list
 * with one line.
 *
 * @module
 */

import { httpSection } from "./http.ts";
import { largeCatalogSection } from "./large_catalog.ts";
import { liveRefreshSection } from "./live_refresh.ts";
import { protocolErasSection } from "./protocol_eras.ts";
import { searchSection } from "./search.ts";
import type { BenchSection } from "./section.ts";
import { skillRunSection } from "./skill_run.ts";
import { skillRunSoakSection } from "./skill_run_soak.ts";
import { skillsExtensionSection } from "./skills_extension.ts";
import { startupAndListingSection } from "./startup_and_listing.ts";
import { startupRaceSection } from "./startup_race.ts";
import { underAttackSection } from "./under_attack.ts";

/** The sections `make bench` runs, in order. Add a section here, once. */
export const SECTIONS: readonly BenchSection[] = Object.freeze([
  startupAndListingSection,
  protocolErasSection,
  skillsExtensionSection,
  liveRefreshSection,
  searchSection,
  skillRunSection,
  skillRunSoakSection,
  httpSection,
  startupRaceSection,
  underAttackSection,
  largeCatalogSection,
]);
