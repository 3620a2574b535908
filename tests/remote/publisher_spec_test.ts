import { assertEquals, assertThrows } from "./_assert.ts";
import { computeFetcherPermissions } from "../../src/remote/fetcher_permissions.ts";
import { decideEndpoints } from "../../src/remote/github_hosts.ts";
import {
  OriginListError,
  parseOriginList,
  parsePublisherSpec,
  refusalOfPublisherUrl,
} from "../../src/remote/publisher_spec.ts";
import { parseRemoteSpec } from "../../src/remote/remote_source.ts";
import { SourceSpecError } from "../../src/remote/source_spec.ts";

Deno.test("parsePublisherSpec() accepts the suffix, no suffix and a trailing index.json alike", () => {
  const forms = [
    "https://Example.com/.well-known/agent-skills/",
    "https://example.com/.well-known/agent-skills",
    "https://example.com",
    "https://example.com:443/.well-known/agent-skills/index.json",
  ];
  for (const form of forms) {
    const source = parsePublisherSpec(form);
    assertEquals(source.spec, "https://example.com/.well-known/agent-skills/", form);
    assertEquals(source.indexUrl, "https://example.com/.well-known/agent-skills/index.json");
    assertEquals([source.origin, source.prefix, source.kind], [
      "https://example.com",
      "example-com",
      "well-known",
    ]);
  }
});

Deno.test("parsePublisherSpec() keeps a base path in the spec and the default prefix", () => {
  const source = parsePublisherSpec("https://docs.example.com/team/a/.well-known/agent-skills/");
  assertEquals(source.spec, "https://docs.example.com/team/a/.well-known/agent-skills/");
  assertEquals(source.prefix, "docs-example-com-team-a");
  const named = parsePublisherSpec("http://127.0.0.1:8080/,prefix=local");
  assertEquals([named.prefix, named.origin], ["local", "http://127.0.0.1:8080"]);
});

Deno.test("attack: parsePublisherSpec() refuses plain http off loopback, credentials, queries, traversal", () => {
  for (
    const spec of [
      "http://example.com/.well-known/agent-skills/",
      "https://user:pw@example.com/",
      "https://example.com/?x=1",
      "https://example.com/#frag",
      "https://example.com/a/../b/.well-known/agent-skills/",
      "https://example.com/%2e%2e/.well-known/agent-skills/",
      "https://example.com/,prefix=Bad__Prefix",
      "https://example.com/,mirror=evil",
      "ftp://example.com/",
    ]
  ) {
    assertThrows(() => parseRemoteSpec(spec), SourceSpecError, undefined, spec);
  }
});

Deno.test("parseRemoteSpec() tells GitHub sources from publishers", () => {
  assertEquals(parseRemoteSpec("github:acme/skills").kind, "github");
  assertEquals(parseRemoteSpec("https://github.com/acme/skills").kind, "github");
  assertEquals(parseRemoteSpec("https://skills.acme.dev/").kind, "well-known");
});

Deno.test("parseOriginList() normalises exact origins and refuses wildcards, paths and remote http", () => {
  assertEquals(
    parseOriginList(["https://Example.com", "https://example.com:443/", "http://127.0.0.1:9"]),
    ["https://example.com", "http://127.0.0.1:9"],
  );
  for (
    const entry of [
      "https://*.example.com",
      "https://example.com/path",
      "http://example.com",
      "example.com",
      "https://example.com?x",
    ]
  ) {
    assertThrows(() => parseOriginList([entry]), OriginListError, undefined, entry);
  }
});

Deno.test("attack: refusalOfPublisherUrl() refuses another origin, port, scheme or credentials", () => {
  const allowed = ["https://example.com", "http://127.0.0.1:8080"];
  assertEquals(refusalOfPublisherUrl(new URL("https://example.com/x.zip"), allowed), null);
  assertEquals(refusalOfPublisherUrl(new URL("http://127.0.0.1:8080/i.json"), allowed), null);
  for (
    const url of [
      "https://evil.example.com/x",
      "https://example.com.evil.net/x",
      "https://example.com:8443/x",
      "http://example.com/x",
      "http://127.0.0.1:8081/x",
      "https://u:p@example.com/x",
      "file:///etc/passwd",
    ]
  ) {
    assertEquals(typeof refusalOfPublisherUrl(new URL(url), allowed), "string", url);
  }
});

Deno.test("computeFetcherPermissions() gains exactly the allowed publisher origins as host:port", () => {
  const endpoints = decideEndpoints("https://api.github.com", null);
  const set = computeFetcherPermissions(endpoints, ["/cache"], [
    "https://skills.acme.dev",
    "http://127.0.0.1:8080",
  ]);
  assertEquals(set.permissions.net, [
    "api.github.com:443",
    "codeload.github.com:443",
    "skills.acme.dev:443",
    "127.0.0.1:8080",
  ]);
  assertEquals(typeof set.reasons["net:skills.acme.dev:443"], "string");
  assertEquals(computeFetcherPermissions(endpoints, ["/cache"]).permissions.net, [
    "api.github.com:443",
    "codeload.github.com:443",
  ]);
});
