/**
 * End-to-end: `resources/*` of the real program on a temporary copy of each
 * corpus (tests/support/corpora.ts), driven by the real SDK client.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { copyCorpus, corpora, type Corpus } from "../support/corpora.ts";
import { writeSparseFile } from "../support/large_files.ts";
import { connectStdio } from "../support/program.ts";
import type { Resource } from "../support/sdk_client.ts";

/** 17 MiB: over the 16 MiB cap of `resources/read`. */
const HUGE_BYTES = 17 * 1024 * 1024;
/** Extra files so the listing needs more than one 500-entry page. */
const GENERATED_FILES = 700;

/** Every file of every skill of a corpus copy, as `skill://` URIs, skipping dot-entries. */
async function walkSkills(corpus: Corpus, skillDir: (name: string) => string): Promise<string[]> {
  const uris: string[] = [];
  async function walk(skill: string, dir: string, rel: string[]): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.startsWith(".")) continue;
      const path = [...rel, entry.name];
      if (entry.isDirectory) await walk(skill, join(dir, entry.name), path);
      else uris.push(`skill://${skill}/${path.map(encodeURIComponent).join("/")}`);
    }
  }
  for (const name of corpus.names) await walk(name, skillDir(name), []);
  return uris.sort();
}

/** Asserts a client call rejects with a JSON-RPC error of `code` whose message matches. */
async function rejectsWith(call: () => Promise<unknown>, code: number, pattern: RegExp) {
  await assert.rejects(call, (error: unknown) => {
    assert.equal((error as { code?: unknown }).code, code, String(error));
    assert.match((error as Error).message, pattern);
    return true;
  });
}

for (const corpus of corpora()) {
  Deno.test(`resources over the ${corpus.label} corpus: listing, exact reads, caps and the path gate`, async (t) => {
    const { rich, binaries } = corpus.facts;
    const first = corpus.names[0] as string;
    const other = corpus.names.find((name) => name !== rich.skill) as string;
    await using copy = await copyCorpus(corpus);
    const generated = join(copy.skill(first), "generated files");
    await Deno.mkdir(generated);
    for (let index = 0; index < GENERATED_FILES; index++) {
      await Deno.writeTextFile(join(generated, `f${index}.txt`), `file ${index}\n`);
    }
    await writeSparseFile(join(copy.skill(rich.skill), "huge.bin"), HUGE_BYTES);
    await using session = await connectStdio(["serve", copy.root]);
    const { client } = session;
    const listed: Resource[] = [];

    await t.step("the server declares resources with subscribe and listChanged", () => {
      const capabilities = client.getServerCapabilities();
      assert.deepEqual(capabilities?.resources, { subscribe: true, listChanged: true });
    });

    await t.step(
      "resources/list paged to the end lists every file of every skill exactly once",
      async () => {
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await client.listResources(cursor === undefined ? {} : { cursor });
          assert.ok(page.resources.length <= 500, `page of ${page.resources.length}`);
          listed.push(...page.resources);
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== undefined);
        assert.ok(pages >= 2, `${pages} pages`);
        const uris = listed.map((resource) => resource.uri);
        assert.equal(new Set(uris).size, uris.length, "no URI is listed twice");
        assert.deepEqual(uris.sort(), await walkSkills(corpus, copy.skill));
        assert.ok(uris.includes(`skill://${first}/generated%20files/f699.txt`));
      },
    );

    await t.step(
      "SKILL.md is listed above supporting files with size and lastModified",
      async () => {
        const skillMd = listed.find((r) => r.uri === `skill://${rich.skill}/SKILL.md`);
        const pdf = listed.find((r) => r.uri === `skill://${rich.skill}/${rich.pdf}`);
        assert.ok(skillMd && pdf);
        const pdfInfo = await Deno.stat(join(copy.skill(rich.skill), rich.pdf));
        assert.equal(pdf.size, pdfInfo.size);
        assert.equal(pdf.mimeType, "application/pdf");
        assert.equal(pdf.annotations?.lastModified, pdfInfo.mtime?.toISOString());
        assert.ok((skillMd.annotations?.priority ?? 0) > (pdf.annotations?.priority ?? 1));
        assert.equal(skillMd.mimeType, "text/markdown");
      },
    );

    await t.step(
      "resources/read returns the PDF, a font (and an image) as their exact bytes in a blob",
      async () => {
        for (const binary of binaries) {
          const path = `${binary.skill}/${binary.path}`;
          const { contents } = await client.readResource({ uri: `skill://${path}` });
          assert.equal(contents.length, 1);
          const content = contents[0] as {
            blob?: string;
            text?: string;
            uri: string;
            mimeType?: string;
          };
          assert.equal(content.text, undefined, path);
          assert.equal(content.uri, `skill://${path}`);
          assert.equal(content.mimeType, binary.mediaType);
          const expected = await Deno.readFile(join(copy.skill(binary.skill), binary.path));
          assert.deepEqual(Uint8Array.fromBase64(content.blob ?? ""), expected, path);
        }
      },
    );

    await t.step("resources/read returns SKILL.md as its exact text", async () => {
      const { contents } = await client.readResource({ uri: `skill://${rich.skill}/SKILL.md` });
      const content = contents[0] as { text?: string; mimeType?: string };
      assert.equal(content.text, await Deno.readTextFile(join(copy.skill(rich.skill), "SKILL.md")));
      assert.equal(content.mimeType, "text/markdown");
    });

    await t.step(
      "a 17 MiB file is refused whole with its size, the cap and what to do",
      async () => {
        await rejectsWith(
          () => client.readResource({ uri: `skill://${rich.skill}/huge.bin` }),
          -32602,
          /is 17825792 bytes, over the 16777216-byte cap of resources\/read.*skill_file/,
        );
      },
    );

    await t.step("a symlink planted after listing is refused at read time", async () => {
      const planted = join(copy.skill(rich.skill), rich.plainFile);
      const uri = `skill://${rich.skill}/${rich.plainFile}`;
      await Deno.remove(planted);
      await Deno.symlink("/etc/passwd", planted);
      await rejectsWith(
        () => client.readResource({ uri }),
        -32602,
        new RegExp(
          `"${RegExp.escape(uri)}" is not served: path "${
            RegExp.escape(rich.plainFile)
          }" leads outside`,
        ),
      );
      await assert.rejects(
        () => client.readResource({ uri }),
        (error: unknown) => !String(error).includes("/etc") && !String(error).includes("root:"),
      );
    });

    await t.step(
      "URIs that are not served get -32602 (SEP-2164, both eras) naming the URI",
      async () => {
        for (
          const uri of [
            "skill://no-such-skill/SKILL.md",
            `skill://${rich.skill}/../${other}/SKILL.md`,
            `skill://${rich.skill}/..%2F..%2F..%2Fetc%2Fpasswd`,
            `skill://${rich.skill}/SKILL.md?raw`,
            "file:///etc/passwd",
          ]
        ) {
          await rejectsWith(() => client.readResource({ uri }), -32602, /is not served/);
        }
      },
    );

    await t.step("a cursor the server did not issue is refused with -32602", async () => {
      await rejectsWith(() => client.listResources({ cursor: "forged" }), -32602, /Cursor/);
    });

    await t.step(
      "resources/templates/list offers skill://{name}/{+path} and the prefixed form",
      async () => {
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate), [
          "skill://{name}/{+path}",
          "skill://{prefix}/{name}/{+path}",
        ]);
      },
    );

    await t.step("subscribe and unsubscribe are accepted for served URIs", async () => {
      const uri = `skill://${rich.skill}/SKILL.md`;
      assert.deepEqual(await client.subscribeResource({ uri }), {});
      assert.deepEqual(
        await client.unsubscribeResource({ uri }),
        {},
      );
      assert.deepEqual(await client.unsubscribeResource({ uri: "skill://never/SKILL.md" }), {});
      await rejectsWith(
        () => client.subscribeResource({ uri: "skill://no-such-skill/SKILL.md" }),
        -32602,
        /no skill named "no-such-skill"/,
      );
    });
  });
}
