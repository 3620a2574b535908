/**
 * Review r15: an error no code caught in the trusted part ended the process
 * by Deno's default, before the script groups `exitProcess` ends. With
 * `exitOnUncaughtErrors()` a rejected promise nobody waits for and a throw in
 * a callback both go through `exitProcess`: the registered group enders run,
 * the status is 1, and stderr says what failed.
 */

import assert from "node:assert/strict";

const MODULE = new URL("../../src/sandbox/process_exit.ts", import.meta.url).href;

async function run(fault: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const code = `
    const { endGroupsAtExit, exitOnUncaughtErrors } = await import(${JSON.stringify(MODULE)});
    endGroupsAtExit(() => { console.log("groups ended"); return 1; });
    exitOnUncaughtErrors();
    ${fault}
    await new Promise((resolve) => setTimeout(resolve, 5000));
    console.log("still running");
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--cached-only", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

Deno.test("attack: a promise rejected with nobody waiting ends script groups before the process", async () => {
  const result = await run(`Promise.reject(new Error("lost rejection"));`);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "groups ended\n");
  assert.match(result.stderr, /skillgate: internal error: lost rejection/);
});

Deno.test("attack: a throw in a callback ends script groups before the process", async () => {
  const result = await run(`setTimeout(() => { throw new Error("thrown in a timer"); }, 0);`);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "groups ended\n");
  assert.match(result.stderr, /skillgate: internal error: thrown in a timer/);
});
