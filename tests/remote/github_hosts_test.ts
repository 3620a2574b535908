import { assertEquals, assertThrows } from "./_assert.ts";
import { decideEndpoints, EndpointError, refusalOfUrl } from "../../src/remote/github_hosts.ts";

Deno.test("decideEndpoints() pairs api.github.com with codeload.github.com", () => {
  const endpoints = decideEndpoints("https://api.github.com/", null);
  assertEquals(endpoints, {
    apiBase: "https://api.github.com",
    apiHost: "api.github.com:443",
    downloadHost: "codeload.github.com:443",
  });
});

Deno.test("decideEndpoints() keeps an Enterprise path and downloads from the same host", () => {
  const endpoints = decideEndpoints("https://ghe.example.com/api/v3", null);
  assertEquals(endpoints.apiBase, "https://ghe.example.com/api/v3");
  assertEquals(endpoints.downloadHost, "ghe.example.com:443");
});

Deno.test("attack: decideEndpoints() allows plain http only on loopback", () => {
  assertEquals(decideEndpoints("http://127.0.0.1:9/", "127.0.0.1:10").downloadHost, "127.0.0.1:10");
  for (const url of ["http://example.com", "ftp://x", "https://u:p@api.github.com", "nope"]) {
    assertThrows(() => decideEndpoints(url, null), EndpointError, undefined, url);
  }
  assertThrows(() => decideEndpoints("http://127.0.0.1:9", "evil.example:80"), EndpointError);
});

Deno.test("attack: refusalOfUrl() refuses a redirect off the API and download hosts", () => {
  const endpoints = decideEndpoints("https://api.github.com", null);
  assertEquals(refusalOfUrl(new URL("https://codeload.github.com/a/b/tar.gz/x"), endpoints), null);
  for (
    const url of [
      "https://evil.example/x",
      "http://codeload.github.com/x",
      "https://codeload.github.com:8443/x",
      "https://169.254.169.254/latest",
      "file:///etc/passwd",
    ]
  ) {
    assertEquals(typeof refusalOfUrl(new URL(url), endpoints), "string", url);
  }
});
