/**
 * TEST-ONLY: a fake GitHub with one repository whose branches hold real
 * tarballs, a temporary sources cache, and the fetch context pointing at them.
 *
 * @module
 */

import { decideEndpoints } from "../../src/remote/github_hosts.ts";
import type { FetchContext } from "../../src/remote/fetch_source.ts";
import { DEFAULT_REMOTE_CAPS } from "../../src/remote/remote_caps.ts";
import { fakeCommit, type FakeGitHub, startFakeGitHub } from "./_fake_github.ts";
import { buildTarball, githubMembers } from "./_tarball.ts";

/** Skill files of version 1 of `acme/skills` (under `skills/`). */
export const V1: Readonly<Record<string, string>> = Object.freeze({
  "README.md": "# acme skills\n",
  "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Reads PDF files.\n---\nUse pdftotext.\n",
  "skills/pdf/ref/notes.md": "notes v1\n",
  "skills/docx/SKILL.md": "---\nname: docx\ndescription: Reads Word files.\n---\nUnzip it.\n",
});

/** Version 2: pdf changed, docx removed, csv added. */
export const V2: Readonly<Record<string, string>> = Object.freeze({
  "README.md": "# acme skills\n",
  "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Reads PDF files.\n---\nUse pdftotext.\n",
  "skills/pdf/ref/notes.md": "notes v2\n",
  "skills/csv/SKILL.md": "---\nname: csv\ndescription: Reads CSV files.\n---\nSplit on commas.\n",
});

/**
 * Puts a commit of `owner/repo` with `files` into the fake and points `ref` at it.
 *
 * @returns The commit.
 */
export async function publish(
  fake: FakeGitHub,
  ownerRepo: string,
  ref: string,
  files: Readonly<Record<string, string>>,
): Promise<string> {
  const commit = await fakeCommit(`${ownerRepo}:${JSON.stringify(files)}`);
  const repo = fake.repos.get(ownerRepo) ?? { refs: {}, tarballs: {} };
  fake.repos.set(ownerRepo, repo);
  const top = `${ownerRepo.replace("/", "-")}-${commit.slice(0, 7)}`;
  repo.tarballs[commit] = await buildTarball(githubMembers(top, commit, files));
  repo.refs[ref] = commit;
  if (ref === "main") repo.refs.HEAD = commit;
  return commit;
}

/** A fake GitHub, a temporary cache folder and the fetch context. */
export interface RemoteFixture extends AsyncDisposable {
  readonly fake: FakeGitHub;
  readonly cacheDir: string;
  readonly dir: string;
  context(token?: string | null): FetchContext;
}

/**
 * Starts the fixture.
 *
 * @returns The fixture; dispose it to stop the servers and remove the folder.
 */
export async function remoteFixture(): Promise<RemoteFixture> {
  const fake = startFakeGitHub();
  const dir = await Deno.makeTempDir({ prefix: "skillgate-remote-" });
  const cacheDir = `${dir}/cache/skillgate/sources`;
  // As skillgate makes it (0700): with GITHUB_TOKEN set, nothing is fetched into a cache others
  // may read (review r14).
  await Deno.mkdir(cacheDir, { recursive: true, mode: 0o700 });
  return {
    fake,
    dir,
    cacheDir,
    context: (token = null) => ({
      endpoints: decideEndpoints(fake.apiUrl, fake.downloadHost),
      cacheDir,
      caps: DEFAULT_REMOTE_CAPS,
      token,
    }),
    async [Symbol.asyncDispose]() {
      await fake[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Whether the fake's two hosts are distinct listeners (sanity for the token test). */
export function hostsDiffer(fake: FakeGitHub): boolean {
  return !fake.apiUrl.endsWith(fake.downloadHost);
}

export { DEFAULT_REMOTE_CAPS };
